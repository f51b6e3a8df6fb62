/**
 * The embedded default's partner sandbox on its own thread: it answers lookups as the one in process
 * does, counts a key's arrivals on its own event loop (held by nothing the service does), refuses a port
 * in use as startPartnerSandbox does, and closes when asked.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { sendReportingDeparture } from '../../../src/partner/departure.js';
import { SANDBOX_KEY } from '../../../src/partner/sandbox/server.js';
import { startPartnerSandboxThread, type ThreadedPartnerSandbox } from '../../../src/partner/sandbox/thread.js';

describe('the partner sandbox on a thread', () => {
  const open: ThreadedPartnerSandbox[] = [];
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
  });

  it('answers lookups of the people it names', async () => {
    const sandbox = await startPartnerSandboxThread({ port: 0 });
    open.push(sandbox);
    expect(sandbox.known.length).toBeGreaterThan(5);
    const person = sandbox.known[0]!;
    const headers = { authorization: `Bearer ${SANDBOX_KEY}` };
    const found = await fetch(`${sandbox.url}/people?work_email=${encodeURIComponent(person.workEmail)}`, { headers });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { id: string }).id).toBe(person.id);
  });

  it('takes a request in while this thread is held, as a provider elsewhere would', async () => {
    // Each answer waits 250 ms after its request arrived. The request leaves, then this thread is held
    // 300 ms: on its own thread the sandbox took the request in and answered meanwhile (about 300 ms in
    // all); on this thread's loop it would have seen the request only after the hold (550 ms or more).
    const sandbox = await startPartnerSandboxThread({ port: 0, latencyMs: 250 });
    open.push(sandbox);
    const headers = { authorization: `Bearer ${SANDBOX_KEY}` };
    const email = encodeURIComponent(sandbox.known[1]!.workEmail);
    await fetch(`${sandbox.url}/__sandbox/stats`); // a connection made beforehand
    const started = performance.now();
    const answer = sendReportingDeparture(
      // Reported just before the write: the hold starts once the write is done.
      () =>
        queueMicrotask(() => {
          const until = performance.now() + 300;
          while (performance.now() < until);
        }),
      () => fetch(`${sandbox.url}/people?work_email=${email}`, { headers }),
    );
    expect((await answer).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(450);
  });

  it('refuses a port in use with EADDRINUSE, as the sandbox in process does', async () => {
    const first = await startPartnerSandboxThread({ port: 0 });
    open.push(first);
    await expect(startPartnerSandboxThread({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('stops listening when closed', async () => {
    const sandbox = await startPartnerSandboxThread({ port: 0 });
    const started = performance.now();
    await sandbox.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect(fetch(`${sandbox.url}/__sandbox/stats`)).rejects.toThrow();
  });
});
