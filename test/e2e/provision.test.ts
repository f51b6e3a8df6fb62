/**
 * Custom properties a mapping declares are never created silently: a mapping whose properties the CRM
 * lacks does not start, `mappings provision` creates them (HubSpot over its properties API, Salesforce
 * through the Metadata API, granted in the integration user's permission set), and then the mapping starts.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { loadConfig } from '../../src/config.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../src/partner/sandbox/server.js';
import { provision } from '../../src/cli/provision-command.js';
import { startService } from '../../src/app/start-service.js';
import { SERVER_URL, serverUnavailable, uniqueSchema } from '../support/db.js';
import { dropSchema } from './probes.js';
import { runCli } from './process.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping provisioning tests: ${skip}`);

describe.skipIf(skip)('custom properties', () => {
  let partner: PartnerSandbox;
  let hubspot: HubspotSandbox;
  let salesforce: SalesforceSandbox;
  const config = () =>
    loadConfig({
      PARTNER_API_KEY: 'sandbox-key',
      PARTNER_BASE_URL: partner.url,
      HUBSPOT_ACCESS_TOKEN: 'sandbox-token',
      HUBSPOT_BASE_URL: hubspot.url,
      SALESFORCE_LOGIN_URL: salesforce.url,
      SALESFORCE_CLIENT_ID: 'sandbox',
      SALESFORCE_CLIENT_SECRET: 'sandbox',
      DATABASE_URL: SERVER_URL,
    });
  // Each start gets a schema of its own, dropped after the file so the shared server does not fill up.
  const schemas: string[] = [];
  const start = () => {
    const schema = uniqueSchema('prov');
    schemas.push(schema);
    return startService({ config: config(), schedule: false, store: { schema } });
  };

  beforeAll(async () => {
    partner = await startPartnerSandbox({ port: 0, people: 200, companies: 20 });
    hubspot = await startHubspotSandbox({ port: 0 });
    salesforce = await startSalesforceSandbox({ port: 0 });
  });
  afterAll(async () => {
    await Promise.allSettled([partner?.close(), hubspot?.close(), salesforce?.close()]);
    for (const schema of schemas) await dropSchema(schema);
  });

  it("mappings check --live reads each CRM's schema and names the custom properties it lacks", async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      HUBSPOT_ACCESS_TOKEN: 'sandbox-token',
      HUBSPOT_BASE_URL: hubspot.url,
      SALESFORCE_LOGIN_URL: salesforce.url,
      SALESFORCE_CLIENT_ID: 'sandbox',
      SALESFORCE_CLIENT_SECRET: 'sandbox',
    };
    const result = await runCli(['mappings', 'check', '--live'], env);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      /mappings\/hubspot\/contact\.yaml: fields > crm_enrich_department > custom: crm_enrich_department does not exist in hubspot yet/,
    );
    expect(result.output).toMatch(/mappings\/salesforce\/lead\.yaml: fields > CE_\w+__c > custom: /);
    const refused = await runCli(['mappings', 'check', '--live'], { PATH: process.env.PATH ?? '' });
    expect(refused.code).toBe(2);
    expect(refused.output).toMatch(/--live needs CRM credentials/);
  }, 60_000);

  it('keeps a mapping whose custom properties are missing from starting, until provisioning creates them', async () => {
    const before = await start();
    try {
      expect(before.parts.mappings.get('hubspot', 'contact')).toBeUndefined();
      expect(before.parts.mappings.disabled.get('hubspot/contact')).toMatch(/crm_enrich_/);
      expect(before.parts.mappings.get('salesforce', 'Lead')).toBeUndefined();
    } finally {
      await before.stop();
    }

    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk) => (printed += String(chunk)));
    const outstanding = await provision({ mappings: 'mappings' }, config(), out);
    expect(printed).toMatch(/hubspot contact\): \d+ created/);
    expect(printed).toMatch(/created crm_enrich_department/);
    expect(printed).toMatch(/salesforce Lead\): [1-9]\d* created, \d+ already there, 0 to add by hand/);
    expect(printed).toMatch(/created CE_Seniority__c/);
    // The job-change actions' properties too (mappings/job-changes.yaml turns them on for both CRMs).
    expect(printed).toMatch(/job-change actions \(hubspot contact\): 3 created/);
    expect(printed).toMatch(/created crm_enrich_previous_title/);
    expect(printed).toMatch(/job-change actions \(salesforce Contact\): 3 created, 0 already there, 0 to add by hand/);
    expect(outstanding).toBe(0);

    const after = await start();
    try {
      expect(after.parts.mappings.get('hubspot', 'contact')).toBeDefined();
      expect(after.parts.mappings.get('salesforce', 'Lead')).toBeDefined();
      expect(after.parts.mappings.get('salesforce', 'Account')).toBeDefined();
    } finally {
      await after.stop();
    }

    // Everything is there now: a second run creates nothing.
    let second = '';
    const again = new PassThrough();
    again.on('data', (chunk) => (second += String(chunk)));
    expect(await provision({ mappings: 'mappings', crm: 'salesforce' }, config(), again)).toBe(0);
    expect(second).not.toMatch(/ created [A-Za-z]/);
    expect(second).toMatch(/salesforce Lead\): 0 created/);
  });
});
