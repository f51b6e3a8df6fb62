/**
 * bin/crm-enrich.js started by a Node older than 22 (the machine's, which npm itself runs on): it hands
 * over to the `node` package's Node 22 and works, and where there is no such package it says what to do.
 * Needs an older Node on the machine (`OLD_NODE`, else `/usr/bin/node`); skipped, saying why, without one.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OLD_NODE = process.env.OLD_NODE ?? '/usr/bin/node';

async function olderNode(): Promise<string | undefined> {
  const version = await exec(OLD_NODE, ['--version']).then(
    (r) => r.stdout.trim(),
    () => undefined,
  );
  if (!version) return `no Node at ${OLD_NODE}`;
  return Number(version.slice(1).split('.')[0]) < 22 ? undefined : `${OLD_NODE} is ${version}, not older than 22`;
}

const skip = await olderNode();
if (skip) console.warn(`skipping the older-Node tests of bin/crm-enrich.js: ${skip}`);

describe.skipIf(skip)('bin/crm-enrich.js on an older Node', () => {
  const alone = mkdtempSync(join(tmpdir(), 'crm-enrich-bin-'));
  afterAll(() => rmSync(alone, { recursive: true, force: true }));

  it("runs the command on the node package's Node 22", async () => {
    const { stdout } = await exec(
      OLD_NODE,
      [join(ROOT, 'bin/crm-enrich.js'), 'mappings', 'check', join(ROOT, 'mappings')],
      { cwd: ROOT },
    );
    // tsx and the commands need Node 22: on the older Node itself this would not get this far.
    expect(stdout.trim()).toMatch(/^\d+ mappings in .*mappings are valid/);
  }, 60_000);

  it('says what to do where no Node 22 is at hand, in one line', async () => {
    copyFileSync(join(ROOT, 'bin/crm-enrich.js'), join(alone, 'crm-enrich.js'));
    const failed = await exec(OLD_NODE, [join(alone, 'crm-enrich.js'), '--help']).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^crm-enrich needs Node 22 or later, and this is Node 2\d\.[\d.]+\. Install Node 22, or .*npm run cli/,
      ),
    ]);
  });
});
