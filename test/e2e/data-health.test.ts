/**
 * The data-health scan over real HTTP: the HubSpot and Salesforce sandboxes are seeded through the
 * official clients with known gaps (records without a job title, without any match key, at a free-mail
 * provider, companies sharing a domain), and the report's counts are checked against what the sandboxes
 * hold, the lookup cache's answers against the credits, and each finished run against the trend.
 */
import { Client } from '@hubspot/api-client';
import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/compile.js';
import { emptyCounts } from '../../src/enrich/listing/health-counts.js';
import { driveHealthScan, type HealthScanDeps } from '../../src/enrich/listing/health-scan.js';
import { serverUnavailable } from '../support/db.js';
import { dropSchema, settled } from './probes.js';
import { runCli } from './process.js';
import { connect, MemoryOAuthClient, signIn } from '../mcp/oauth-helpers.js';
import {
  ADMIN_TOKEN,
  eventually,
  partnerPeople,
  startSandboxes,
  startService,
  type RunningService,
  type Sandboxes,
} from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the data-health tests: ${skip}`);

interface Report {
  connection: string;
  object: string;
  records: number;
  properties: { property: string; filled: number; fillable: number; credits: number }[];
  credits: number;
  neverEnriched: number;
  stale: number;
  noMatchKey: number;
  freeMail: number;
  noCompany: number | null;
  duplicateDomains: number | null;
  scannedAt: string;
  running: unknown;
  trend: { records: number; filled: Record<string, number> }[];
}

const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/** What the report should say of these records, counted from the sandbox's own store. */
function expected(
  mapping: CompiledMapping,
  records: Record<string, string | null>[],
  cached = new Set<string>(),
  enrichedLately: (r: Record<string, string | null>) => boolean = () => false,
) {
  const properties = Object.keys(mapping.rules).map((property) => {
    const empty = records.filter((r) => !filled(r[property]));
    const fillable = empty.filter((r) => mapping.matchKeys(r).length > 0);
    return {
      property,
      filled: records.length - empty.length,
      fillable: fillable.length,
      // A lookup asks the keys in order: the first one the cache holds ends it without a credit. A record
      // enriched lately whose answer left the property empty would get the same answer: no credit either.
      credits: fillable.filter((r) => !cached.has(mapping.matchKeys(r)[0]!.value) && !enrichedLately(r)).length,
    };
  });
  return { records: records.length, properties };
}

describe.skipIf(skip)('data-health scan', () => {
  let sandboxes: Sandboxes;
  let running: RunningService;
  const people = { titled: 12, untitled: 18, freeMail: 5, keyless: 4 };

  beforeAll(async () => {
    sandboxes = await startSandboxes({ people: 500, companies: 100 });
    const hubspot = new Client({ accessToken: 'sandbox-token', basePath: sandboxes.hubspot.url });
    const known = partnerPeople(sandboxes, people.titled + people.untitled);
    const inputs = [
      ...known.map((p, i) => ({
        properties: { email: p.workEmail!, ...(i < people.titled ? { jobtitle: 'Buyer' } : {}) },
        associations: [],
      })),
      ...Array.from({ length: people.freeMail }, (_, i) => ({
        properties: { email: `someone${i}@gmail.com` },
        associations: [],
      })),
      ...Array.from({ length: people.keyless }, (_, i) => ({
        properties: { firstname: `Keyless ${i}` },
        associations: [],
      })),
    ];
    for (let i = 0; i < inputs.length; i += 100)
      await hubspot.crm.contacts.batchApi.create({ inputs: inputs.slice(i, i + 100) });
    // Three domains, one of them on three companies and one on two: three duplicates; one without a domain.
    const domains = [
      'alpha.example',
      'alpha.example',
      'alpha.example',
      'beta.example',
      'beta.example',
      'gamma.example',
    ];
    await hubspot.crm.companies.batchApi.create({
      inputs: [
        ...domains.map((domain, i) => ({ properties: { domain, name: `Company ${i}` }, associations: [] })),
        { properties: { name: 'No domain' }, associations: [] },
      ],
    });

    const salesforce = new Connection({
      instanceUrl: sandboxes.salesforce.url,
      accessToken: sandboxes.salesforce.accessToken,
      version: '62.0',
    });
    const account = await salesforce.sobject('Account').create({ Name: 'Acme', Website: 'https://acme.example' });
    const sfPeople = partnerPeople(sandboxes, 8, 100);
    await salesforce.sobject('Contact').create([
      ...sfPeople.map((p, i) => ({
        LastName: `Person ${i}`,
        Email: p.workEmail!,
        ...(i < 3 ? { Title: 'Engineer', AccountId: (account as { id: string }).id } : {}),
      })),
      { LastName: 'Keyless' },
    ]);

    // The service starts after the seeding: no webhook reaches it, so nothing is enriched before the scan.
    running = await startService(sandboxes, { env: { HUBSPOT_CREATE_COMPANIES: 'false' } });
  });
  afterAll(async () => {
    await running?.stop();
    await sandboxes?.close();
    await dropSchema(running?.schema);
  });

  async function scan(connection: string, object: string): Promise<Report> {
    const before = await running.admin<Report>('GET', `/data-health/${connection}/${object}`);
    const runs = before.status === 200 ? before.body.trend.length : 0;
    const started = await running.admin<{ status: string }>('POST', `/data-health/${connection}/${object}/runs`);
    expect(started.status).toBe(202);
    return eventually(
      async () => {
        const res = await running.admin<Report>('GET', `/data-health/${connection}/${object}`);
        return res.status === 200 && res.body.trend.length > runs && !res.body.running ? res.body : undefined;
      },
      20_000,
      `a finished scan of ${connection} ${object}`,
    );
  }

  const hubspotRecords = (type: 'contacts' | 'companies') =>
    [...sandboxes.hubspot.store.objects[type].values()].map((o) => Object.fromEntries(o.properties));

  it('counts every HubSpot contact, and per property filled, fillable and credits as the sandbox holds', async () => {
    const mapping = running.service.parts.mappings.get('hubspot', 'contact')!;
    const report = await scan('hubspot', 'contact');
    const records = hubspotRecords('contacts');
    const total = people.titled + people.untitled + people.freeMail + people.keyless;
    expect(records).toHaveLength(total);
    expect(report).toMatchObject({ connection: 'hubspot', object: 'contact', ...expected(mapping, records) });
    expect(report.properties.find((p) => p.property === 'jobtitle')).toEqual({
      property: 'jobtitle',
      filled: people.titled,
      fillable: people.untitled + people.freeMail,
      credits: people.untitled + people.freeMail,
    });
    expect(report).toMatchObject({
      neverEnriched: total,
      stale: 0,
      noMatchKey: people.keyless,
      freeMail: people.freeMail,
      noCompany: records.filter((r) => !filled(r.associatedcompanyid)).length,
      duplicateDomains: null,
    });
    // Every record with a key and a gap costs a lookup: nothing is cached yet.
    expect(report.credits).toBe(total - people.keyless);
  });

  it('spends no credit on records whose answer the lookup cache holds, found or not', async () => {
    const known = partnerPeople(sandboxes, 3, people.titled);
    const cached = new Set(known.map((p) => p.workEmail!.toLowerCase()));
    await running.service.parts.store.cache.putMany([
      { key: { kind: 'person', idType: 'work_email', value: known[0]!.workEmail! }, hit: true, response: {} },
      { key: { kind: 'person', idType: 'work_email', value: known[1]!.workEmail! }, hit: true, response: {} },
      // A cached miss for the work e-mail leaves the personal e-mail to ask: still one credit.
      { key: { kind: 'person', idType: 'work_email', value: known[2]!.workEmail! }, hit: false },
      { key: { kind: 'person', idType: 'personal_email', value: known[2]!.workEmail! }, hit: false },
    ]);
    const mapping = running.service.parts.mappings.get('hubspot', 'contact')!;
    const report = await scan('hubspot', 'contact');
    expect(report.properties).toEqual(expected(mapping, hubspotRecords('contacts'), cached).properties);
    expect(report.properties.find((p) => p.property === 'jobtitle')!.credits).toBe(
      people.untitled + people.freeMail - 3,
    );
    expect(report.trend).toHaveLength(2);
    expect(report.trend.map((t) => t.records)).toEqual([report.records, report.records]);
  });

  it('counts HubSpot companies sharing a domain with an earlier one', async () => {
    const report = await scan('hubspot', 'company');
    expect(report).toMatchObject({ records: 7, duplicateDomains: 3, noCompany: null, noMatchKey: 1 });
    const mapping = running.service.parts.mappings.get('hubspot', 'company')!;
    expect(report.properties).toEqual(expected(mapping, hubspotRecords('companies')).properties);
  });

  it('counts Salesforce contacts after their outbound messages were enriched', async () => {
    // The org queued an outbound message for every new contact and delivered them once the service was up.
    const rows = () => sandboxes.salesforce.records('Contact');
    await eventually(
      () => (rows().filter((r) => filled(r.CE_Partner_Id__c)).length === 8 ? true : undefined),
      20_000,
      'the eight known contacts to be enriched',
    );
    await settled({ running, sandboxes });
    const report = await scan('salesforce', 'contact');
    const mapping = running.service.parts.mappings.get('salesforce', 'contact')!;
    const records = rows().map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null || v === undefined ? null : String(v)])),
    );
    const looked = new Set(records.filter((r) => filled(r.CE_Partner_Id__c)).map((r) => String(r.Email).toLowerCase()));
    expect(report).toMatchObject({
      connection: 'salesforce',
      object: 'Contact',
      ...expected(mapping, records, looked, (r) => filled(r.CE_Partner_Id__c)),
    });
    expect(report).toMatchObject({
      records: 9,
      noMatchKey: 1,
      stale: 0,
      neverEnriched: 1,
      noCompany: records.filter((r) => !filled(r.AccountId)).length,
    });
    // Enriched records are asked by their partner id first, which the e-mail lookups did not cache; but
    // they were enriched just now, and the partner had nothing for the gaps they have left: asking again
    // fills none of them, so none costs a credit.
    const gaps = records.filter(
      (r) => filled(r.CE_Partner_Id__c) && Object.keys(mapping.rules).some((p) => !filled(r[p])),
    ).length;
    expect(gaps).toBeGreaterThan(0);
    expect(report.credits).toBe(0);
  });

  it('resumes a stopped scan from its stored cursor, to the counts of a scan never stopped', async () => {
    const { store, ports, connectors, mappings } = running.service.parts;
    const connector = connectors.find((c) => c.connection === 'hubspot')!;
    const mapping = mappings.get('hubspot', 'contact')!;
    const cursors: (string | undefined)[] = [];
    let abort = new AbortController();
    const deps: HealthScanDeps = {
      runs: store.health,
      states: (connection, objectType, ids) => ports.state.getMany(connection, objectType, ids),
      cached: async (keys) => keys.map(() => undefined),
      freeMail: { has: (d) => d === 'gmail.com' },
      refreshAfterDays: 30,
      // Pages of 10, so the 39 contacts take four; the first scan is stopped after its second page.
      reader: (c) => async (objectType, properties, cursor) => {
        cursors.push(cursor);
        if (cursors.length === 2) abort.abort();
        return c.listRecords(
          objectType,
          { properties, limit: 10, ...(cursor ? { cursor } : {}) },
          { priority: 'bulk' },
        );
      },
    };
    const first = await store.health.start('resume-test', 'hubspot', 'contact', emptyCounts(mapping, true));
    const partial = await driveHealthScan(deps, connector, 'contact', mapping, first, abort.signal);
    expect(partial.records).toBe(20);
    const stored = (await store.health.running('hubspot', 'contact'))!;
    expect(stored).toMatchObject({ id: 'resume-test', status: 'running', counts: partial });
    expect(stored.cursor).toBeTruthy();

    abort = new AbortController();
    const resumed = await driveHealthScan(deps, connector, 'contact', mapping, stored);
    expect(cursors[2]).toBe(stored.cursor);
    expect(cursors).toHaveLength(4);
    expect(await store.health.running('hubspot', 'contact')).toBeUndefined();

    cursors.length = 0;
    abort = new AbortController();
    const again = await store.health.start('uninterrupted', 'hubspot', 'contact', emptyCounts(mapping, true));
    const whole = await driveHealthScan(
      {
        ...deps,
        reader: (c) => async (o, properties, cursor) => {
          cursors.push(cursor);
          return c.listRecords(o, { properties, limit: 10, ...(cursor ? { cursor } : {}) }, { priority: 'bulk' });
        },
      },
      connector,
      'contact',
      mapping,
      again,
    );
    expect(resumed).toEqual(whole);
    expect(whole.records).toBe(hubspotRecords('contacts').length);
  });

  const cli = (...args: string[]) =>
    runCli(['health', '--url', running.url, ...args], {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
    });

  it('`crm-enrich health --format json` prints the report the admin API gives', async () => {
    const result = await cli('--connection', 'hubspot', '--object', 'company', '--format', 'json');
    expect(result.code, result.output).toBe(0);
    const api = await running.admin<Report>('GET', '/data-health/hubspot/company');
    expect(JSON.parse(result.output)).toEqual(api.body);
    expect(JSON.parse(result.output)).toMatchObject({ connection: 'hubspot', object: 'company', records: 7 });
  });

  it('`crm-enrich health --run` scans first; csv has a row per mapped property', async () => {
    const before = await running.admin<Report>('GET', '/data-health/hubspot/company');
    const result = await cli('--connection', 'hubspot', '--object', 'company', '--format', 'csv', '--run');
    expect(result.code, result.output).toBe(0);
    const after = await running.admin<Report>('GET', '/data-health/hubspot/company');
    expect(after.body.trend).toHaveLength(before.body.trend.length + 1);
    const lines = result.output
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('scanning '));
    expect(lines[0]).toBe('connection,object,records,property,filled,fillable,credits');
    expect(lines.slice(1)).toEqual(
      after.body.properties.map((p) => `hubspot,company,7,${p.property},${p.filled},${p.fillable},${p.credits}`),
    );
  });

  it('`crm-enrich health` refuses an unknown format and an unknown object by name, exit 1', async () => {
    const format = await cli('--connection', 'hubspot', '--object', 'company', '--format', 'xml');
    expect(format.code).toBe(1);
    expect(format.output).toContain('--format must be one of table, json, csv; got "xml"');
    const object = await cli('--connection', 'hubspot', '--object', 'deal');
    expect(object.code).toBe(1);
    expect(object.output).toContain('"deal" is not a mapped object of hubspot');
  });

  it('answers the MCP tool data_health with a read-only token, as the admin API reports', async () => {
    const reader = await signIn(running.url, { client: new MemoryOAuthClient({ name: 'Reader' }), scope: 'read' });
    const mcp = await connect(running.url, reader);
    try {
      const result = await mcp.callTool({ name: 'data_health', arguments: { crm: 'hubspot', object: 'contact' } });
      expect(result.isError).toBeFalsy();
      const api = await running.admin<Report>('GET', '/data-health/hubspot/contact');
      expect(result.structuredContent).toEqual(api.body);
      const none = await mcp.callTool({ name: 'data_health', arguments: { crm: 'salesforce', object: 'Lead' } });
      expect(none.isError).toBe(true);
      expect((none.content as { text: string }[])[0]!.text).toContain('no data-health scan of salesforce Lead');
    } finally {
      await mcp.close();
    }
  });

  it('names the unknown connection or object, and an object never scanned', async () => {
    const unknown = await running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/data-health/pipedrive/contact/runs',
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_connection', details: { field: 'connection' } });
    const object = await running.admin<{ error: { code: string } }>('GET', '/data-health/hubspot/deal');
    expect(object.status).toBe(404);
    expect(object.body.error.code).toBe('unknown_object');
    const none = await running.admin<{ error: { code: string } }>('GET', '/data-health/salesforce/lead');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('no_report');
  });
});
