/**
 * The lane's link step, against the HubSpot sandbox over HTTP: written records linked with their companies
 * in one association call, each told its own outcome; a company the CRM refuses fails that record's link
 * only; records with no association to make cost no call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHubspotConnector } from '../../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../../connectors/hubspot/sandbox/server.js';
import type { CrmConnector } from '../../../src/core/connector.js';
import type { CompanyLinkPlan } from '../../../src/enrich/employers/company-link.js';
import { linkRecords } from '../../../src/enrich/lane/link-step.js';

let sandbox: HubspotSandbox;
let connector: CrmConnector;

beforeAll(async () => {
  sandbox = await startHubspotSandbox({ rateLimit: 10_000 });
  connector = createHubspotConnector({
    connection: 'default',
    accessToken: 'sandbox-token',
    basePath: sandbox.url,
    rateLimit: { max: 1000, windowMs: 10_000 },
  });
});

afterAll(async () => {
  await connector.close();
  await sandbox.close();
});

const associationCalls = () =>
  sandbox.stats().byEndpoint['POST /crm/associations/2026-09/contacts/companies/batch/create'] ?? 0;

/** A contact to link with a new company, as a lane holds it once its employer is known. */
function written(): { recordId: string; link: CompanyLinkPlan } {
  const contact = sandbox.createContact({ email: `p${Math.random().toString(36).slice(2)}@example.com` });
  const company = sandbox.createCompany({ name: 'Acme', domain: `${contact.id}.example` });
  return {
    recordId: contact.id,
    link: { action: 'associate', property: 'associatedcompanyid', current: null, companyId: company.id, reason: 'r' },
  };
}

it('links a batch of written records in one call and returns each link with its outcome', async () => {
  const items = [written(), written(), written()];
  const before = associationCalls();
  const report = await linkRecords({ connector, objectType: 'contacts' }, items, 'bulk');
  expect(associationCalls() - before).toBe(1);
  expect(report.failed).toBe(0);
  for (const item of items) {
    expect(report.links.get(item.recordId)).toMatchObject({ action: 'associate', outcome: 'linked_primary' });
    expect(sandbox.getContact(item.recordId)?.associatedcompanyid).toBe(
      item.link.action === 'associate' ? item.link.companyId : undefined,
    );
  }
  // The items passed in are left as they were: the step returns the links it made.
  expect(items[0]!.link).not.toHaveProperty('outcome');
});

it('fails only the link the CRM refuses, and says why', async () => {
  const good = written();
  const bad = written();
  bad.link = { ...bad.link, companyId: '999999999' } as CompanyLinkPlan;
  const report = await linkRecords({ connector, objectType: 'contacts' }, [good, bad], 'bulk');
  expect(report.failed).toBe(1);
  expect(report.links.get(bad.recordId)).toMatchObject({ outcome: 'failed', error: expect.any(String) });
  expect(report.links.get(good.recordId)).toMatchObject({ outcome: 'linked_primary' });
});

it('makes no call for records with nothing to associate', async () => {
  const before = associationCalls();
  const none: CompanyLinkPlan = { action: 'none', property: 'associatedcompanyid', current: null, reason: 'off' };
  const report = await linkRecords({ connector, objectType: 'contacts' }, [{ recordId: '1', link: none }], 'bulk');
  expect(associationCalls() - before).toBe(0);
  expect(report).toEqual({ links: new Map(), failed: 0 });
});
