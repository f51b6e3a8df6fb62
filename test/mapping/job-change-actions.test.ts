/**
 * The job-change actions file: the shipped one is valid and `mappings check` passes with it (the mapping
 * loader leaves it alone); a bad one has every problem reported at once, with file and path.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJobChangeActions, parseJobChangeActions } from '../../src/mapping/job-change-actions.js';
import { loadMappingDir } from '../../src/mapping/index.js';

const run = promisify(execFile);
const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'job-change-actions-'));
  await cp('mappings', dir, { recursive: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('job-change actions file', () => {
  it('ships valid, each action on, and is not read as a mapping', async () => {
    const loaded = await loadJobChangeActions('mappings');
    expect(loaded.problems).toEqual([]);
    expect(loaded.document?.connections).toEqual({
      hubspot: { properties: true, task: true },
      salesforce: { properties: true, task: true },
    });
    const mappings = await loadMappingDir('mappings');
    expect(mappings.problems).toEqual([]);
    expect(mappings.mappings.map((m) => m.file)).not.toContain('mappings/job-changes.yaml');
  });

  it('turns actions off one by one, the rest on by default', () => {
    const parsed = parseJobChangeActions('connections:\n  hubspot: { task: false }\n', 'x.yaml');
    expect(parsed.document?.connections.hubspot).toEqual({ properties: true, task: false });
  });

  it('reports every problem at once with its path', () => {
    const parsed = parseJobChangeActions(
      'connections:\n  hubspot: { taks: true, properties: yes please }\n  salesforce: 3\nextra: 1\n',
      'x.yaml',
    );
    expect(parsed.document).toBeUndefined();
    const lines = parsed.problems.map((p) => `${p.path.join(' > ')}: ${p.code}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'connections > hubspot > taks: unknown_key',
        'connections > hubspot > properties: invalid_value',
        'connections > salesforce: invalid_value',
        'extra: unknown_key',
      ]),
    );
    expect(parsed.problems.find((p) => p.path.at(-1) === 'taks')?.message).toMatch(/did you mean "task"/);
    expect(parseJobChangeActions('connections: [', 'x.yaml').problems[0]?.code).toBe('yaml_syntax');
  });

  it('`mappings check` passes the shipped directory and reports a bad actions file beside the mapping problems', async () => {
    const good = await run(TSX, ['src/cli.ts', 'mappings', 'check', dir], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    expect(good.stdout).toMatch(/5 mappings in .* are valid/);
    await writeFile(join(dir, 'job-changes.yaml'), 'connections:\n  hubspot: { task: maybe, note: 1 }\n');
    const bad = await run(TSX, ['src/cli.ts', 'mappings', 'check', dir], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
    }).catch((e: unknown) => e as { code: number; stderr: string });
    expect((bad as { code: number }).code).toBe(1);
    const stderr = (bad as { stderr: string }).stderr;
    expect(stderr).toMatch(/job-changes\.yaml: connections > hubspot > task: /);
    expect(stderr).toMatch(/job-changes\.yaml: connections > hubspot > note: unknown key "note"/);
    expect(stderr).toMatch(/2 problems/);
  });
});
