/**
 * The embedded default's secrets: the HubSpot client secret a user sets is the one the service checks
 * and the sandbox signs with; without one, each data directory gets its own random secret, kept
 * across restarts and readable by its owner only. Never a constant anyone could sign with. The same
 * holds for the Salesforce flow action's secret, and the banner names the file, never the secret.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { banner } from '../../src/cli/demo.js';
import { embeddedEnvironment } from '../../src/cli/embedded.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-secrets-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function secretOf(env: Record<string, string>): Promise<string | undefined> {
  const embedded = await embeddedEnvironment(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env }));
  try {
    return embedded.config.HUBSPOT_CLIENT_SECRET;
  } finally {
    await embedded.close();
  }
}

describe('embedded default secrets', () => {
  it('uses the HubSpot client secret the user set', async () => {
    expect(await secretOf({ CRM_ENRICH_DATA_DIR: tempDir(), HUBSPOT_CLIENT_SECRET: 'the-one-i-set' })).toBe(
      'the-one-i-set',
    );
  });

  it('otherwise generates one per data directory, keeps it, and shows it to nobody else', async () => {
    const dir = tempDir();
    const first = await secretOf({ CRM_ENRICH_DATA_DIR: dir });
    expect(first).toMatch(/^[\w-]{32}$/);
    expect(first).not.toBe('sandbox-client-secret');
    expect(await secretOf({ CRM_ENRICH_DATA_DIR: dir })).toBe(first);
    expect(await secretOf({ CRM_ENRICH_DATA_DIR: tempDir() })).not.toBe(first);
    expect(statSync(join(dir, 'hubspot-client-secret')).mode & 0o077).toBe(0);
  });

  it('generates the flow action secret per data directory, keeps it, and names its file in the banner', async () => {
    const dir = tempDir();
    const start = () => embeddedEnvironment(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', CRM_ENRICH_DATA_DIR: dir }));
    const embedded = await start();
    let first: string | undefined;
    try {
      first = embedded.config.SALESFORCE_ACTION_SECRET;
      expect(first).toMatch(/^[\w-]{32}$/);
      expect(first).not.toBe(embedded.config.SALESFORCE_WEBHOOK_SECRET);
      const file = join(dir, 'salesforce-action-secret');
      expect(statSync(file).mode & 0o077).toBe(0);
      const text = banner(embedded, 'http://127.0.0.1:3000', { emails: [], active: false, stop: () => undefined });
      expect(text).toContain(`flow action secret: in ${file}`);
      expect(text).not.toContain(first!);
    } finally {
      await embedded.close();
    }
    const again = await start();
    try {
      expect(again.config.SALESFORCE_ACTION_SECRET).toBe(first);
    } finally {
      await again.close();
    }
  });

  it('uses the flow action secret the user set, and says so in the banner', async () => {
    const set = 'my-own-flow-action-secret-of-32-chars';
    const embedded = await embeddedEnvironment(
      loadConfig({ PORT: '0', LOG_LEVEL: 'silent', CRM_ENRICH_DATA_DIR: tempDir(), SALESFORCE_ACTION_SECRET: set }),
    );
    try {
      expect(embedded.config.SALESFORCE_ACTION_SECRET).toBe(set);
      const text = banner(embedded, 'http://127.0.0.1:3000', { emails: [], active: false, stop: () => undefined });
      expect(text).toContain('flow action secret: the SALESFORCE_ACTION_SECRET you set');
    } finally {
      await embedded.close();
    }
  });
});
