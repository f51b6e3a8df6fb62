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
      hubspot: { properties: true, task: true, employer: true, newContact: false },
      salesforce: { properties: true, task: true, employer: true, newContact: false },
    });
    expect(loaded.document?.sweep.hubspot).toEqual([
      {
        object: 'contact',
        segment: { property: 'lifecyclestage', operator: 'EQ', value: 'customer' },
        olderThanDays: 30,
      },
    ]);
    expect(loaded.document?.sweep.salesforce?.[0]?.object).toBe('Contact');
    const mappings = await loadMappingDir('mappings');
    expect(mappings.problems).toEqual([]);
    expect(mappings.mappings.map((m) => m.file)).not.toContain('mappings/job-changes.yaml');
  });

  it('turns actions off one by one, the rest on by default', () => {
    const parsed = parseJobChangeActions('connections:\n  hubspot: { task: false }\n', 'x.yaml');
    expect(parsed.document?.connections.hubspot).toEqual({
      properties: true,
      task: false,
      employer: true,
      newContact: false,
    });
    expect(parsed.document?.sweep).toEqual({});
  });

  it('reads scheduled sweeps and reports every problem of the sweep section at once, with its path', () => {
    const good = parseJobChangeActions(
      'connections: {}\nsweep:\n  hubspot:\n    - { object: contact, segment: { listId: "42" } }\n' +
        '  salesforce:\n    - { object: Lead, segment: { where: "LeadSource = \'Web\'" }, olderThanDays: 0 }\n',
      'x.yaml',
    );
    expect(good.problems).toEqual([]);
    expect(good.document?.sweep).toEqual({
      hubspot: [{ object: 'contact', segment: { listId: '42' } }],
      salesforce: [{ object: 'Lead', segment: { where: "LeadSource = 'Web'" }, olderThanDays: 0 }],
    });
    const bad = parseJobChangeActions(
      [
        'connections: {}',
        'sweep:',
        '  hubspot:',
        '    - { object: company, segment: { where: "x = 1" } }',
        '    - { object: contact, segment: { property: lifecyclestage }, olderThanDays: -2 }',
        '    - { object: contact, segment: { listId: abc } }',
        '    - { objekt: contact, segment: { foo: 1 } }',
        '  salesforce:',
        '    - { object: Contact, segment: { listId: "12" } }',
        '  pipedrive:',
        '    - { object: person, segment: { property: a, value: b } }',
        '',
      ].join('\n'),
      'x.yaml',
    );
    expect(bad.document).toBeUndefined();
    const lines = bad.problems.map((p) => `${p.path.join(' > ')}: ${p.code}: ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'sweep > hubspot > 0 > object: invalid_value: hubspot sweeps contact, not company',
        expect.stringMatching(
          /^sweep > hubspot > 0 > segment > where: invalid_value: a SOQL condition is for Salesforce/,
        ),
        expect.stringMatching(/^sweep > hubspot > 1 > segment > value: invalid_value: expected a value/),
        expect.stringMatching(/^sweep > hubspot > 1 > olderThanDays: invalid_value: /),
        'sweep > hubspot > 2 > segment > listId: invalid_value: expected a HubSpot list id (digits)',
        expect.stringMatching(/^sweep > hubspot > 3 > objekt: unknown_key: .*did you mean "object"/),
        expect.stringMatching(/^sweep > hubspot > 3 > segment: invalid_value: expected \{property/),
        expect.stringMatching(/^sweep > salesforce > 0 > segment > listId: invalid_value: lists are HubSpot's/),
        'sweep > pipedrive: invalid_value: no connection "pipedrive"; use hubspot or salesforce',
      ]),
    );
    expect(bad.problems).toHaveLength(10);
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

  it('`mappings check` passes the shipped directory and reports a bad actions file with mapping problems', async () => {
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
