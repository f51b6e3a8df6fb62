/**
 * One stack per test file: sandboxes and the service started before the file's tests and stopped
 * after them, with the service's schema dropped so the shared server does not fill up.
 */
import { afterAll, beforeAll } from 'vitest';
import { dropSchema } from './probes.js';
import { startSandboxes, startService, type RunningService, type Sandboxes, type StackOptions } from './stack.js';
import type { ServiceOptions } from '../../src/app/start-service.js';

export interface Stack {
  readonly sandboxes: Sandboxes;
  readonly running: RunningService;
}

/** Call inside a describe block; read `sandboxes` and `running` from inside tests. */
export function useStack(
  options: { sandboxes?: StackOptions; service?: StackOptions & Partial<ServiceOptions> } = {},
): Stack {
  let sandboxes: Sandboxes | undefined;
  let running: RunningService | undefined;
  beforeAll(async () => {
    sandboxes = await startSandboxes(options.sandboxes);
    running = await startService(sandboxes, options.service);
  });
  afterAll(async () => {
    await running?.stop();
    await sandboxes?.close();
    await dropSchema(running?.schema);
  });
  return {
    get sandboxes() {
      if (!sandboxes) throw new Error('the sandboxes are started in beforeAll; use them inside a test');
      return sandboxes;
    },
    get running() {
      if (!running) throw new Error('the service is started in beforeAll; use it inside a test');
      return running;
    },
  };
}
