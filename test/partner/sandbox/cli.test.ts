import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { FilterOptionsResponse } from '../../../src/partner/schemas.js';
import { createDataset } from '../../../src/partner/sandbox/dataset.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function cli(...args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'sandbox', 'partner', ...args], {
    cwd: new URL('../../../', import.meta.url),
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const url = /partner sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url) resolve(url);
    });
    void exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
  });
  // A run that is meant to fail never listens; its rejection is read through `exited` instead.
  listening.catch(() => undefined);
  return { child, listening, exited, output: () => ({ stdout, stderr }) };
}

describe('crm-enrich sandbox partner', () => {
  it('prints its address, serves the API and stops cleanly on SIGTERM', async () => {
    const run = cli('--port', '0', '--seed', '3', '--companies', '40', '--people', '80', '--latency-ms', '5');
    const url = await run.listening;
    const answer = await fetch(`${url}/filter-options?identifiers=revenue`, {
      headers: { authorization: 'Bearer sandbox-key' },
    });
    expect(answer.status).toBe(200);
    expect(FilterOptionsResponse.parse(await answer.json()).filters[0]!.identifier).toBe('revenue');
    const sample = (await (await fetch(`${url}/__sandbox/sample?n=100`)).json()) as { companies: unknown[] };
    expect(sample.companies).toHaveLength(40);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual([0, null]);
  });

  it('moves a share of the people at start with --job-changes-share, and refuses a share outside 0..1', async () => {
    const run = cli('--port', '0', '--seed', '3', '--companies', '40', '--people', '80', '--job-changes-share', '1');
    const url = await run.listening;
    const generated = createDataset({ seed: 3, companies: 40, people: 80 }).personRecords[0]!;
    const answer = await fetch(`${url}/people?id=${generated.id}`, {
      headers: { authorization: 'Bearer sandbox-key' },
    });
    const person = (await answer.json()) as { current_company: { id: string } };
    expect(person.current_company.id).not.toBe(generated.employer.company.id);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual([0, null]);

    const refused = cli('--port', '0', '--job-changes-share', '2');
    const [code] = await refused.exited;
    expect(code).not.toBe(0);
    expect(refused.output().stderr).toMatch(/--job-changes-share expects a number from 0 to 1, got '2'/);
  });

  it('refuses a fail rate outside 0..1 with a message naming the option', async () => {
    const run = cli('--port', '0', '--fail-rate', '1.5');
    const [code] = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output().stderr).toMatch(/--fail-rate expects a number from 0 to 1, got '1.5'/);
  });
});
