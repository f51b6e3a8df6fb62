/**
 * `crm-enrich mappings check --required`: a warning for each property a portal requires that a mapping
 * does not fill (HubSpot refuses such creates and updates from API version 2026-09).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(TSX, ['src/cli.ts', 'mappings', 'check', 'mappings', ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('mappings check --required', () => {
  it('warns for each required property a mapping leaves empty, and for none it fills', async () => {
    const result = await check(
      '--required',
      'hubspot/company=founded_year,industry',
      '--required',
      'hubspot/contact=email,hs_persona',
    );
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(2);
    expect(warnings.find((w) => w.includes('company.yaml'))).toContain(
      'the portal requires industry on company records, but this mapping does not fill it',
    );
    expect(warnings.find((w) => w.includes('contact.yaml'))).toContain(
      'the portal requires hs_persona on contact records',
    );
    // founded_year is a field of the company mapping, and email the contact mapping's match key.
    expect(result.stderr).not.toContain('founded_year');
    expect(result.stderr).not.toMatch(/requires email/);
    expect(result.stdout).toMatch(/mappings in mappings are valid/);
  });

  it('refuses a --required it cannot read, naming the expected form', async () => {
    const result = await check('--required', 'hubspot/company');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--required hubspot/company: expected <crm>/<object>=<property>[,...], e.g. hubspot/company=founded_year',
    );
  });
});
