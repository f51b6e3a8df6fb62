import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createRateLimiter, type SharedRateLimiter } from '../../../src/limits/create-rate-limiter.js';
import { PartnerClient, type PartnerClientOptions } from '../../../src/partner/client.js';
import { PartnerError } from '../../../src/partner/partner-error.js';
import type { PartnerRequestEvent } from '../../../src/partner/partner-transport.js';
import {
  startPartnerSandbox,
  type PartnerSandbox,
  type PartnerSandboxOptions,
} from '../../../src/partner/sandbox/server.js';

export const KEY = 'sandbox-key';

export interface Sample {
  companies: Array<Record<string, string>>;
  people: Array<Record<string, string>>;
}

/** A sandbox, its sample identifiers, and a way to make clients that are all closed together. */
export async function partnerFixture(options: PartnerSandboxOptions = {}) {
  const sandbox: PartnerSandbox = await startPartnerSandbox({
    port: 0,
    companies: 300,
    people: 3000,
    seed: 7,
    ...options,
  });
  const sample = (await (await fetch(`${sandbox.url}/__sandbox/sample?market=AU&n=20`)).json()) as Sample;
  const limiters: SharedRateLimiter[] = [];
  // Every client of one fixture shares the key's limiter, as in the service; a test that wants the
  // sandbox to refuse asks for a higher `max`, which gets a limiter of its own.
  const keyLimiterId = `test:${randomUUID()}`;

  function client(overrides: Partial<PartnerClientOptions> & { max?: number } = {}) {
    const { max = 50, ...rest } = overrides;
    const limiter = createRateLimiter({ id: max === 50 ? keyLimiterId : `test:${randomUUID()}`, max, windowMs: 1000 });
    limiters.push(limiter);
    const created = new PartnerClient({ baseUrl: sandbox.url, apiKey: KEY, limiter, baseDelayMs: 5, ...rest });
    const events: PartnerRequestEvent[] = [];
    created.on('request', (e) => events.push(e));
    return { client: created, events, limiter };
  }

  /** Requests the sandbox counted for the valid key. */
  const served = () => sandbox.stats().keys[KEY]?.served ?? 0;

  async function close() {
    await Promise.all(limiters.map((l) => l.stop()));
    await sandbox.close();
  }

  return { sandbox, sample, client, served, close };
}

export type PartnerFixture = Awaited<ReturnType<typeof partnerFixture>>;

/** The PartnerError a call rejects with (failing the test if it resolves or throws something else). */
export async function failure(promise: Promise<unknown>): Promise<PartnerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PartnerError);
  return error as PartnerError;
}
