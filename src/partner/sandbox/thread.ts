/**
 * The embedded default's partner sandbox runs on a thread of its own. A real provider counts a key's
 * requests as they reach it; a sandbox on the service's own event loop would count them only when that
 * loop is free again (the embedded database's work holds it for tens of milliseconds at a time), so
 * requests sent evenly would be counted in bunches and refused. On its own thread it counts arrivals as
 * the provider would, and its work (answers, its dataset) takes nothing from the service's loop.
 */
import { Worker } from 'node:worker_threads';
import { logger } from '../../logger.js';
import type { PartnerSandboxOptions } from './server.js';

const log = logger('partner.sandbox');

export interface KnownPerson {
  id: string;
  workEmail: string;
}

export interface ThreadedPartnerSandbox {
  url: string;
  port: number;
  /** A few people the sandbox knows, each with a work e-mail (for demo records). */
  known: KnownPerson[];
  close(): Promise<void>;
}

/** Starts the sandbox on a worker thread; rejects as startPartnerSandbox would (EADDRINUSE included). */
export function startPartnerSandboxThread(options: PartnerSandboxOptions = {}): Promise<ThreadedPartnerSandbox> {
  // Run from the TypeScript sources (tests, `npm run cli`, from the project's root), the thread loads them through tsx.
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSources ? './thread-entry.ts' : './thread-entry.js', import.meta.url);
  const worker = new Worker(entry, { workerData: options, ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}) });
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    worker.once('error', failed);
    worker.once('exit', (code) => reject(new Error(`the partner sandbox's thread stopped (exit ${code})`)));
    worker.once('message', (started: { url: string; port: number; known: KnownPerson[] }) => {
      worker.off('error', failed);
      worker.removeAllListeners('exit');
      worker.on('error', (error) => log.error({ err: error }, "the partner sandbox's thread failed"));
      let closing: Promise<void> | undefined;
      resolve({
        ...started,
        close: () =>
          (closing ??= new Promise<void>((done) => {
            worker.once('exit', () => done());
            worker.postMessage({ type: 'close' });
          })),
      });
    });
  });
}
