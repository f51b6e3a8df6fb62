/**
 * The key's limit holds at the partner's side while the event loop stalls: one process sends lookups as
 * fast as its own limiter lets it while its event loop is held 100-300 ms at a time (as the embedded
 * database's work holds it during an import), so requests given slots apart can leave together. The
 * partner sandbox runs in this process, apart from those stalls, and counts arrivals in its own sliding
 * second: never more than 50, none refused.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPartnerSandbox, type PartnerSandbox } from '../../src/partner/sandbox/server.js';

const LOOKUPS = 250;

describe('the partner limit under event-loop stalls', () => {
  let sandbox: PartnerSandbox;
  beforeAll(async () => {
    sandbox = await startPartnerSandbox({ port: 0, companies: 100, people: 10, latencyMs: 20 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('never lets the partner see more than 50 requests in a sliding second, nor refuse one', async () => {
    const ids = sandbox.dataset.companies.map((c) => c.id ?? '').filter((id) => id.startsWith('co_au'));
    const { REDIS_URL: _shared, ...env } = process.env;
    const run = await new Promise<{ sent: number; failed: number; stalls: number; ms: number }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/limits/fixtures/limited-lookups.ts'], {
        env: {
          ...env,
          LIMITER_ID: `partner:stalls-${randomUUID()}`,
          PARTNER_URL: sandbox.url,
          LOOKUPS: String(LOOKUPS),
          COMPANY_IDS: ids.join(','),
          START_AT: String(Date.now() + 1_000),
          STALL_MS: '100-300',
          STALL_EVERY_MS: '400',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`exit ${code}: ${out}`)),
      );
    });
    const stats = Object.values(sandbox.stats().keys)[0]!;
    console.log(
      `stalls: ${stats.served} served in ${(run.ms / 1000).toFixed(2)} s with ${run.stalls} stalls, ` +
        `max ${stats.maxWindow} in a sliding second, ${stats.rejected} refused`,
    );
    // The stalls happened during the burst, many times over.
    expect(run.stalls).toBeGreaterThanOrEqual(5);
    expect(run.failed).toBe(0);
    expect(stats.rejected).toBe(0);
    expect(stats.maxWindow).toBeLessThanOrEqual(50);
    expect(stats.served).toBe(LOOKUPS);
  }, 60_000);
});
