/**
 * The HubSpot sandbox with a data directory keeps its portal across restarts (the embedded default's
 * `npm start`, Ctrl-C, `npm start`): records, associations, custom properties and the id counter, one
 * file per portal id. Driven through the official client over HTTP.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@hubspot/api-client';
import * as associationsV4 from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/all.js';
import { InvalidArgumentError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { portalId as parsePortalId } from '../../connectors/hubspot/sandbox/command.js';
import { startHubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import { JournalClient } from '../../connectors/hubspot/journal-client.js';

const Category = associationsV4.AssociationSpecAssociationCategoryEnum;

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-portal-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const start = (dataDir: string, portalId?: number) =>
  startHubspotSandbox({ dataDir, portalId, rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
const clientOf = (url: string) =>
  new Client({ accessToken: 'sandbox-token', basePath: url, numberOfApiCallRetries: 0 });

describe('HubSpot sandbox kept in a data directory', () => {
  it('finds its records, associations and custom properties again after a restart, never reusing an id', async () => {
    const dir = tempDir();
    let sandbox = await start(dir);
    let client = clientOf(sandbox.url);
    await client.crm.properties.coreApi.create('contacts', {
      name: 'crm_enrich_seniority',
      label: 'Seniority',
      type: 'string' as never,
      fieldType: 'text' as never,
      groupName: 'contactinformation',
    });
    const company = await client.crm.companies.basicApi.create({ properties: { domain: 'kept.example' } });
    const contact = await client.crm.contacts.basicApi.create({
      properties: { email: 'ada@kept.example', crm_enrich_seniority: 'senior' },
    });
    await client.crm.associations.v4.batchApi.create('contacts', 'companies', {
      inputs: [
        {
          _from: { id: contact.id },
          to: { id: company.id },
          types: [{ associationCategory: Category.HubspotDefined, associationTypeId: 1 }],
        },
      ],
    });
    await sandbox.close();
    expect(readdirSync(dir)).toEqual(['hubspot-portal-62515.json']);

    sandbox = await start(dir);
    client = clientOf(sandbox.url);
    const again = await client.crm.contacts.basicApi.getById(contact.id, ['email', 'crm_enrich_seniority']);
    expect(again.properties).toMatchObject({ email: 'ada@kept.example', crm_enrich_seniority: 'senior' });
    expect(sandbox.getContact(contact.id)?.associatedcompanyid).toBe(company.id);
    const linked = await client.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'companies');
    expect(linked.results.map((r) => String(r.toObjectId))).toEqual([company.id]);
    const found = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ' as never, value: 'ada@kept.example' }] }],
      properties: ['email'],
      limit: 10,
      after: '0',
      sorts: [],
    });
    expect(found.results.map((r) => r.id)).toEqual([contact.id]);
    const next = await client.crm.contacts.basicApi.create({ properties: { email: 'bob@kept.example' } });
    expect(Number(next.id)).toBeGreaterThan(Math.max(Number(contact.id), Number(company.id)));
    await sandbox.close();
  });

  it('keeps each portal in a file of its own: another portal id starts empty, with the same first ids', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const a = first.createContact({ email: 'a@first.example' });
    await first.close();

    const second = await start(dir, 7_654_321);
    const client = clientOf(second.url);
    expect((await client.crm.contacts.basicApi.getPage(100)).results).toEqual([]);
    const details = (await (await client.apiRequest({ path: '/account-info/v3/details' })).json()) as {
      portalId: number;
    };
    expect(details.portalId).toBe(7_654_321);
    expect(second.createContact({ email: 'b@second.example' }).id).toBe(a.id);
    await second.close();
    expect(readdirSync(dir).sort()).toEqual(['hubspot-portal-62515.json', 'hubspot-portal-7654321.json']);
  });

  it('refuses a file that is not a portal, naming it, rather than starting empty over it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hubspot-portal-62515.json'), '{"portalId": 62515, "nextId": "x"}');
    await expect(start(dir)).rejects.toThrow(/hubspot-portal-62515\.json is not a HubSpot sandbox portal's data/);
  });

  it('takes --portal-id as a positive whole number only', () => {
    expect(parsePortalId('7654321')).toBe(7_654_321);
    for (const bad of ['0', '-3', '12.5', 'abc', '']) expect(() => parsePortalId(bad)).toThrow(InvalidArgumentError);
  });

  it("keeps its app's webhooks journal: subscriptions, entries and offsets the service saved", async () => {
    const dir = tempDir();
    let sandbox = await startHubspotSandbox({ dataDir: dir });
    let journal = new JournalClient({
      baseUrl: sandbox.url,
      clientId: 'sandbox-client-id',
      clientSecret: 'sandbox-client-secret',
    });
    await journal.upsertSubscription(sandbox.portalId, { objectTypeId: '0-1', actions: ['CREATE'], properties: [] });
    sandbox.createContact({ email: 'journaled@kept.example' });
    const [link] = await journal.entries(sandbox.portalId, undefined, 10);
    expect(link).toBeDefined();
    await sandbox.close();

    sandbox = await startHubspotSandbox({ dataDir: dir });
    journal = new JournalClient({
      baseUrl: sandbox.url,
      clientId: 'sandbox-client-id',
      clientSecret: 'sandbox-client-secret',
    });
    // The saved offset is still the journal's: nothing after it yet, rather than a 404.
    expect(await journal.entries(sandbox.portalId, link!.currentOffset, 10)).toEqual([]);
    sandbox.createContact({ email: 'after-restart@kept.example' });
    const [next] = await journal.entries(sandbox.portalId, link!.currentOffset, 10);
    const file = (await journal.file(next!)) as { journalEvents: { eventId: number; action: string }[] };
    // Event ids go on from where they were.
    expect(file.journalEvents.map((e) => [e.eventId, e.action])).toEqual([[2, 'CREATE']]);
    await sandbox.close();
  });
});
