/**
 * `crm-enrich serve` with nothing configured: PGlite, the three sandboxes, and a banner whose
 * copy-paste commands work — the contact they create is enriched, and the second shows it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitWithin, killAll, startServiceProcess } from './process.js';
import { eventually } from './stack.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-embedded-'));

/** The URL and JSON body of a `curl -s -X POST <url> ... -d '<json>'` line of the banner. */
/** The printed command as fetch options: its URL, headers and body, exactly as a shell would send them. */
function curl(line: string): { url: string; headers: Record<string, string>; body: string } {
  const match = /curl -s -X POST (\S+) (.*) -d '(.+)'$/.exec(line.trim());
  if (!match) throw new Error(`not a curl command: ${line}`);
  const headers = Object.fromEntries(
    [...match[2]!.matchAll(/-H '([^:]+): ([^']*)'/g)].map((h) => [h[1]!.toLowerCase(), h[2]!]),
  );
  return { url: match[1]!, headers, body: match[3]! };
}

describe('the embedded default', () => {
  afterAll(async () => {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the whole loop with nothing configured, and its printed commands work', async () => {
    const service = await startServiceProcess(
      { PATH: process.env.PATH ?? '', HOME: dataDir, CRM_ENRICH_DATA_DIR: dataDir, LOG_LEVEL: 'debug' },
      60_000,
    );
    const banner = await eventually(
      () => (service.output().includes('see its enriched properties') ? service.output() : undefined),
      10_000,
      'the banner',
    );
    expect(banner).toContain(`crm-enrich is running at ${service.url}`);
    // Where the admin token is kept, never the token itself.
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(banner).toContain(`admin token:        in ${join(dataDir, 'admin-token')}`);
    expect(banner).not.toContain(token);
    expect(banner).toMatch(/partner sandbox: +http:\/\/127\.0\.0\.1:\d+/);
    expect(banner).toMatch(/Salesforce sandbox: +http:\/\/127\.0\.0\.1:\d+/);

    const lines = banner.split('\n');
    const create = curl(lines[lines.findIndex((l) => l.startsWith('Create a contact')) + 1]!);
    const show = curl(lines[lines.findIndex((l) => l.includes('see its enriched properties')) + 1]!);
    const created = await fetch(create.url, { method: 'POST', headers: create.headers, body: create.body });
    expect(created.status).toBe(201);
    const contactId = ((await created.json()) as { id: string }).id;
    // Search is what a user runs, so it answers as HubSpot's does: a change shows after a couple of
    // seconds, and more than 5 searches a second get a 429. Poll the way a person would, not 20 times a second.
    const enriched = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 300));
        const res = await fetch(show.url, { method: 'POST', headers: show.headers, body: show.body });
        if (res.status === 429) return undefined;
        expect(res.status).toBe(200);
        const found = (await res.json()) as { results: { properties: Record<string, string | null> }[] };
        const properties = found.results[0]?.properties;
        return properties?.jobtitle && properties.crm_enrich_enriched_at ? properties : undefined;
      },
      15_000,
      'the contact to show its enriched properties',
    );
    expect(enriched.firstname).toBeTruthy();

    // The HubSpot sandbox runs the app's workflow action and card against the service, signed with the
    // secret the service checks: enrolling the contact completes its step (at once, or by callback).
    const hubspotSandbox = /HubSpot sandbox: +(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    const sandboxPost = async (path: string, body: unknown) =>
      (
        await fetch(`${hubspotSandbox}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json() as Promise<Record<string, unknown>>;
    const step = await sandboxPost('/__sandbox/workflows/enroll', { objectType: 'contact', objectId: contactId });
    expect(['completed', 'blocked']).toContain(step.state);
    const done = await eventually(
      async () => {
        const e = (await (
          await fetch(`${hubspotSandbox}/__sandbox/workflows/executions/${String(step.callbackId)}`)
        ).json()) as Record<string, unknown>;
        return e.state === 'completed' ? e : undefined;
      },
      20_000,
      'the workflow step to complete',
    );
    expect(done.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    const card = await sandboxPost('/__sandbox/cards/fetch', { path: `/hubspot/card/contact/${contactId}` });
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({ state: 'enriched', lastRunTrigger: 'workflow' });

    // Nothing listens beyond loopback unless HOST says so: the demo's secrets stay on this machine.
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4');
    if (outside) {
      const port = new URL(service.url).port;
      await expect(
        fetch(`http://${outside.address}:${port}/healthz`, { signal: AbortSignal.timeout(3_000) }),
      ).rejects.toThrow();
      for (const sandbox of banner.matchAll(/sandbox: +http:\/\/127\.0\.0\.1:(\d+)/g)) {
        await expect(
          fetch(`http://${outside.address}:${sandbox[1]}/`, { signal: AbortSignal.timeout(3_000) }),
        ).rejects.toThrow();
      }
    } else {
      console.warn('no non-loopback IPv4 interface on this machine; the loopback-only check is skipped');
    }

    service.kill('SIGTERM');
    expect(await exitWithin(service, 20_000)).toEqual({ code: 0, signal: null });

    // The whole log of the run (JSON lines; the banner above them is for the person who started it)
    // holds no e-mail address, token or secret.
    const log = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(log.length).toBeGreaterThan(3);
    expect(log.some((line) => line.includes('crm-enrich started'))).toBe(true);
    expect(log.some((line) => line.includes('enriched a record'))).toBe(true);
    const text = log.join('\n');
    expect(text).not.toMatch(/[\w.+-]+@[\w-]+(\.[\w-]+)+/);
    for (const secret of [
      token,
      readFileSync(join(dataDir, 'hubspot-client-secret'), 'utf8').trim(),
      'sandbox-token',
      'sandbox-key',
    ]) {
      expect(text).not.toContain(secret);
    }
  }, 90_000);
});
