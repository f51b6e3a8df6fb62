/**
 * `crm-enrich serve` with nothing configured: PGlite, the three sandboxes, and a banner whose
 * copy-paste commands work — the contact they create is enriched, and the second shows it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitWithin, killAll, startServiceProcess } from './process.js';
import { eventually } from './stack.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-embedded-'));

/** The URL and JSON body of a `curl -s -X POST <url> ... -d '<json>'` line of the banner. */
function curl(line: string): { url: string; body: string } {
  const match = /curl -s -X POST (\S+) .* -d '(.+)'$/.exec(line.trim());
  if (!match) throw new Error(`not a curl command: ${line}`);
  return { url: match[1]!, body: match[2]! };
}

describe('the embedded default', () => {
  afterAll(async () => {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the whole loop with nothing configured, and its printed commands work', async () => {
    const service = await startServiceProcess({ PATH: process.env.PATH ?? '', HOME: dataDir, CRM_ENRICH_DATA_DIR: dataDir, LOG_LEVEL: 'info' }, 60_000);
    const banner = await eventually(() => (service.output().includes('see its enriched properties') ? service.output() : undefined), 10_000, 'the banner');
    expect(banner).toContain(`crm-enrich is running at ${service.url}`);
    expect(banner).toMatch(/admin token: +\S+/);
    expect(banner).toMatch(/partner sandbox: +http:\/\/127\.0\.0\.1:\d+/);
    expect(banner).toMatch(/Salesforce sandbox: +http:\/\/127\.0\.0\.1:\d+/);

    const lines = banner.split('\n');
    const create = curl(lines[lines.findIndex((l) => l.startsWith('Create a contact')) + 1]!);
    const show = curl(lines[lines.findIndex((l) => l.includes('see its enriched properties')) + 1]!);
    const headers = { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' };
    expect((await fetch(create.url, { method: 'POST', headers, body: create.body })).status).toBe(201);
    const enriched = await eventually(async () => {
      const found = (await (await fetch(show.url, { method: 'POST', headers, body: show.body })).json()) as { results: { properties: Record<string, string | null> }[] };
      const properties = found.results[0]?.properties;
      return properties?.jobtitle && properties.crm_enrich_enriched_at ? properties : undefined;
    }, 5_000, 'the contact to show its enriched properties');
    expect(enriched.firstname).toBeTruthy();

    service.kill('SIGTERM');
    expect(await exitWithin(service, 20_000)).toEqual({ code: 0, signal: null });
  }, 90_000);
});
