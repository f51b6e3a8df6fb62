/**
 * The link queue, against the HubSpot sandbox over HTTP: links of records written apart share one
 * association call when their employers are known in the same moment, wait for a lull in people's
 * records, and go at once when the lane stops.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import type { CrmConnector, CrmRecord } from '../../src/core/connector.js';
import type { CompanyLinkPlan } from '../../src/enrich/employers/company-link.js';
import { LinkQueue } from '../../src/enrich/lane/link-queue.js';
import { PeopleFirst } from '../../src/enrich/lane/people-first.js';

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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Associate = CompanyLinkPlan & { action: 'associate' };

/** A contact to link with a new company, as a lane holds it once its employer is known. */
function written(): { record: CrmRecord; link: Associate } {
  const contact = sandbox.createContact({ email: `p${Math.random().toString(36).slice(2)}@example.com` });
  const company = sandbox.createCompany({ name: 'Acme', domain: `${contact.id}.example` });
  return {
    record: { id: contact.id, properties: {} },
    link: { action: 'associate', property: 'associatedcompanyid', current: null, companyId: company.id, reason: 'r' },
  };
}

it('links records whose employers are known in one moment in one call, each told its own outcome', async () => {
  const queue = new LinkQueue({ links: { connector, objectType: 'contacts' }, batchSize: 100 });
  const before = associationCalls();
  const flushes = [[written(), written()], [written()], [written()]];
  const reports = await Promise.all(flushes.map((items) => queue.link(items)));
  expect(associationCalls() - before).toBe(1);
  expect(reports).toEqual([{ failed: 0 }, { failed: 0 }, { failed: 0 }]);
  for (const item of flushes.flat()) {
    expect(item.link.outcome).toBe('linked_primary');
    expect(sandbox.getContact(item.record.id)?.associatedcompanyid).toBe(item.link.companyId);
  }
});

it('holds links while a person is in hand and sends them at the lull after', async () => {
  const people = new PeopleFirst(50);
  const queue = new LinkQueue({ links: { connector, objectType: 'contacts' }, batchSize: 100, people });
  const before = associationCalls();
  people.arrive();
  const first = written();
  const done = queue.link([first]);
  await sleep(200);
  expect(associationCalls() - before).toBe(0);
  const second = queue.link([written()]);
  people.leave();
  await Promise.all([done, second]);
  expect(associationCalls() - before).toBe(1);
  expect(sandbox.getContact(first.record.id)?.associatedcompanyid).toBe(first.link.companyId);
});

it('sends a full batch, and everything once the lane stops, without waiting for the lull', async () => {
  const people = new PeopleFirst(50);
  const stopping = new AbortController();
  const queue = new LinkQueue({
    links: { connector, objectType: 'contacts' },
    batchSize: 2,
    people,
    holdMs: 60_000,
    stopping: stopping.signal,
  });
  people.arrive();
  const before = associationCalls();
  await queue.link([written(), written()]);
  expect(associationCalls() - before).toBe(1);
  const held = queue.link([written()]);
  await sleep(100);
  expect(associationCalls() - before).toBe(1);
  stopping.abort();
  await held;
  expect(associationCalls() - before).toBe(2);
});

it('says which of its records failed to link when the CRM refuses them', async () => {
  const queue = new LinkQueue({ links: { connector, objectType: 'contacts' }, batchSize: 100 });
  const good = written();
  const bad = written();
  bad.link = { ...bad.link, companyId: '999999999' };
  const [goodReport, badReport] = await Promise.all([queue.link([good]), queue.link([bad])]);
  expect(goodReport).toEqual({ failed: 0 });
  expect(badReport.failed).toBe(1);
  expect(bad.link.outcome).toBe('failed');
  expect(good.link.outcome).toBe('linked_primary');
});
