/**
 * A file enrichment the service stops in, as processes against the partner and HubSpot sandboxes over
 * HTTP: `crm-enrich enrich-file` starts it, the service gets SIGTERM mid-run and the command fails for
 * want of it; after a restart the service goes on with the job by itself, and the same command run again
 * goes on with its job rather than uploading the file again. Every row ends in the result, in order, and
 * the partner is asked once a row: no credit is spent twice.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { killAll, processSchema, runCli, serviceEnv, startServiceProcess } from './process.js';
import { ADMIN_TOKEN, eventually, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';
import type { FileJob } from '../../src/enrich/listing/file/file-jobs.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the enrich-file resume test: ${skip}`);

const ROWS = 300;

describe.skipIf(skip)('a file enrichment the service stopped in', () => {
  let sandboxes: Sandboxes;
  const schema = processSchema();
  const dir = mkdtempSync(join(tmpdir(), 'enrich-file-resume-'));
  const input = join(dir, 'fair.csv');
  const out = join(dir, 'fair-enriched.csv');
  let emails: string[];

  beforeAll(async () => {
    // A partner answer takes 40 ms: a chunk of 100 rows takes about two seconds, time to stop mid-run.
    sandboxes = await startSandboxes({ people: 1_000, companies: 100, partnerLatencyMs: 40 });
    emails = partnerPeople(sandboxes, ROWS).map((p) => p.workEmail!);
    expect(emails).toHaveLength(ROWS);
    writeFileSync(input, `Name,E-mail Address\r\n${emails.map((e, i) => `Person ${i},${e}`).join('\r\n')}\r\n`);
  });
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  it('goes on after a restart where it stopped, and the same command picks up its job', async () => {
    const env = serviceEnv(sandboxes, schema);
    const cliEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' };
    const partnerCalls = () => sandboxes.partner.stats().byEndpoint['GET /people'] ?? 0;
    const first = await startServiceProcess(env);
    const firstRun = runCli(['enrich-file', input, '--out', out, '--url', first.url], cliEnv);
    const job = await eventually(
      async () => {
        const { body } = await first.admin<{ jobs: FileJob[] }>('GET', '/file-enrichments');
        const j = body.jobs[0];
        return j?.status === 'running' && (j.progress?.rows ?? 0) >= 100 ? j : undefined;
      },
      30_000,
      'the first chunk written',
    );
    first.kill('SIGTERM');
    expect(await first.exited).toMatchObject({ code: 0 });
    const stopped = await firstRun;
    expect(stopped.code, stopped.output).toBe(1);
    expect(existsSync(`${out}.job`)).toBe(true);
    const callsAtStop = partnerCalls();
    expect(callsAtStop).toBeLessThan(ROWS);

    const second = await startServiceProcess(env);
    const again = await runCli(['enrich-file', input, '--out', out, '--url', second.url], cliEnv);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(`going on with file enrichment ${job.id}`);
    expect(again.output).toContain(`${ROWS} rows: ${ROWS} enriched`);
    const rows = parse<Record<string, string>>(readFileSync(out), { bom: true, columns: true });
    expect(rows.map((r) => r['E-mail Address'])).toEqual(emails);
    expect(rows.every((r) => r.crm_enrich_status === 'enriched')).toBe(true);
    // Rows written before the stop were copied as they were; only the last of them may have been redone.
    const redone = rows.filter((r) => r.crm_enrich_reason?.includes('from the lookup cache'));
    expect(redone.length).toBeLessThanOrEqual(1);
    // One partner request a row, over both runs: the rows written before the stop were not looked up again.
    expect(partnerCalls()).toBe(ROWS);
    expect(existsSync(`${out}.job`)).toBe(false);
    const { body: jobs } = await second.admin<{ jobs: FileJob[] }>('GET', '/file-enrichments');
    expect(jobs.jobs).toHaveLength(1);
  }, 120_000);
});
