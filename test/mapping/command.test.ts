import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(TSX, ['src/cli.ts', 'mappings', ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mappings-cli-'));
  await mkdir(join(dir, 'bad'));
  const head =
    'crm: hubspot\nobject: contact\nsource: person\n' +
    'match: [{ property: email, by: work_email }]\nmarket: { default: AU }\n';
  await writeFile(join(dir, 'bad', 'one.yaml'), `${head}fields:\n  - { target: jobtitle, from: postion }\n`);
  await writeFile(
    join(dir, 'bad', 'two.yaml'),
    `${head.replace('contact', 'company').replace('person', 'company').replace('work_email', 'fqdn')}fields:\n` +
      '  - { target: name, from: name, transform: nope }\n',
  );
  await writeFile(join(dir, 'crm.json'), JSON.stringify({ properties: { jobtitle: 'Sales Director', company: '' } }));
  await writeFile(join(dir, 'last.json'), JSON.stringify({ jobtitle: 'Sales Manager' }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('crm-enrich mappings', () => {
  it('check passes the default mappings against the standard-property copies', async () => {
    const result = await cli('check', 'mappings', '--schemas', 'test/fixtures/mapping');
    expect(result.stdout).toMatch(/5 mappings in mappings are valid \(5 checked against a CRM schema\)/);
    expect(result.code).toBe(0);
  });

  it('check reports every problem in every file and exits 1', async () => {
    const result = await cli('check', join(dir, 'bad'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /one\.yaml: fields > jobtitle > from: "postion" is not a field of the partner person record; did you mean "position"\?/,
    );
    expect(result.stderr).toMatch(/two\.yaml: fields > name > transform: unknown transform "nope"/);
    expect(result.stderr).toMatch(/2 problems/);
  });

  it('preview prints property, current, new, rule and outcome', async () => {
    const result = await cli(
      'preview',
      '--mapping',
      'mappings/hubspot/contact.yaml',
      '--partner-json',
      'test/fixtures/mapping/person.json',
      '--crm-json',
      join(dir, 'crm.json'),
      '--last-written-json',
      join(dir, 'last.json'),
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^property\s+current\s+new\s+rule\s+outcome$/);
    expect(lines.find((l) => l.startsWith('jobtitle '))).toMatch(
      /Sales Director\s+Head of Sales\s+protect_edits\s+kept_person_edit/,
    );
    expect(lines.find((l) => l.startsWith('company '))).toMatch(/Acme Pty Ltd\s+fill_empty\s+write/);
    expect(lines.find((l) => l.startsWith('mobilephone '))).toMatch(/no_value/);
    expect(result.stdout).toMatch(/properties to write/);
  });

  it('preview says which input is wrong and why', async () => {
    const missing = await cli(
      'preview',
      '--mapping',
      'mappings/hubspot/contact.yaml',
      '--partner-json',
      'test/fixtures/mapping/person.json',
      '--crm-json',
      join(dir, 'missing.json'),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/missing\.json is not readable JSON/);
    await writeFile(join(dir, 'bad-person.json'), JSON.stringify({ phones: 'none' }));
    const bad = await cli(
      'preview',
      '--mapping',
      'mappings/hubspot/contact.yaml',
      '--partner-json',
      join(dir, 'bad-person.json'),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad-person\.json: phones: .*expected a partner person record/);
  });
});
