/**
 * The embedded HubSpot sandbox's validation rules come from SANDBOX_HUBSPOT_REQUIRE and
 * SANDBOX_HUBSPOT_REQUIRE_WHEN, as the sandbox command's --require and --require-when: a 2026-09 write
 * that breaks one is refused, the same write on the v3 path is taken.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { embeddedEnvironment } from '../../src/cli/embedded.js';

const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the embedded HubSpot sandbox and its validation rules', () => {
  it('holds 2026-09 writes to the rules the environment names', async () => {
    const embedded = await embeddedEnvironment(
      loadConfig({
        PORT: '0',
        LOG_LEVEL: 'silent',
        CRM_ENRICH_DATA_DIR: dir,
        SANDBOX_HUBSPOT_REQUIRE: 'contacts:jobtitle',
        SANDBOX_HUBSPOT_REQUIRE_WHEN: 'companies:industry=lifecyclestage:customer',
      }),
    );
    try {
      const create = (path: string, properties: Record<string, string>) =>
        fetch(`${embedded.hubspot!.url}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
          body: JSON.stringify({ properties, associations: [] }),
        });
      const customer = { name: 'Customer', lifecyclestage: 'customer' };
      const refused = await create('/crm/objects/2026-09/companies', customer);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toContain('industry');
      expect((await create('/crm/objects/2026-09/contacts', { email: 'no.title@example.org' })).status).toBe(400);
      expect((await create('/crm/objects/2026-09/companies', { ...customer, industry: 'BANKING' })).status).toBe(201);
      expect((await create('/crm/v3/objects/companies', customer)).status).toBe(201);
    } finally {
      await embedded.close();
    }
  });
});
