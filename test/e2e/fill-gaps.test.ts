/**
 * "Fill the gaps" over real HTTP: a backfill limited to the records the data-health report names for one
 * property, or to a segment of the records' own properties, against the HubSpot, Salesforce and partner
 * sandboxes. The report's credits leave out records enriched lately whose partner answer had nothing for
 * the property (contacts the partner knows no phone for), count stale ones again, and equal the fill's cost
 * preview; the fill enqueues only the records it previewed, and resumes with its segment after a stop.
 */
import { Connection } from 'jsforce';
import { describe, expect, it } from 'vitest';
import { driveBackfill, readBackfill, startBackfill } from '../../src/enrich/listing/backfill.js';
import { cachedAnswers } from '../../src/app/cached-answers.js';
import { schemaQuery, settled } from './probes.js';
import { runCli } from './process.js';
import { ADMIN_TOKEN, eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

interface Report {
  records: number;
  stale: number;
  neverEnriched: number;
  credits: number;
  properties: { property: string; filled: number; fillable: number; credits: number }[];
  trend: unknown[];
  running: unknown;
}
interface DryRun {
  listed: number;
  wouldEnrich: number;
  skipped: number;
  credits: number;
}
interface Progress {
  listed: number;
  enqueued: number;
  done: boolean;
  segment: unknown;
}

const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';

describe('fill the gaps', () => {
  const stack = useStack({ sandboxes: { people: 300, companies: 60 } });
  /** Enriched by a backfill first; the others stay never enriched. */
  const ENRICHED = 10;
  const LATER = 14;
  let ids: string[] = [];

  const contact = (id: string) =>
    Object.fromEntries(stack.sandboxes.hubspot.store.objects.contacts.get(id)!.properties) as Record<string, string>;

  async function scan(): Promise<Report> {
    const { running } = stack;
    const before = await running.admin<Report>('GET', '/data-health/hubspot/contact');
    const runs = before.status === 200 ? before.body.trend.length : 0;
    expect((await running.admin('POST', '/data-health/hubspot/contact/runs')).status).toBe(202);
    return eventually(
      async () => {
        const res = await running.admin<Report>('GET', '/data-health/hubspot/contact');
        return res.status === 200 && res.body.trend.length > runs && !res.body.running ? res.body : undefined;
      },
      20_000,
      'a finished scan',
    );
  }

  const backfillDone = () =>
    eventually(
      async () => {
        const res = await stack.running.admin<Progress>('GET', '/backfills/hubspot/contact');
        return res.body.done ? res.body : undefined;
      },
      30_000,
      'the backfill to finish',
    );

  const dryRun = async (body: Record<string, unknown>) => {
    const res = await stack.running.admin<DryRun>('POST', '/backfills/dry-run', {
      connection: 'hubspot',
      object: 'contact',
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('leaves out of the credits contacts enriched lately whose answer held no phone', async () => {
    const { sandboxes, running } = stack;
    const hubspot = sandboxes.hubspot;
    hubspot.setWebhookUrl(undefined);
    // Half the contacts at companies of 50 to 100 people, half at 5 to 25 (HubSpot's contact ranges).
    ids = partnerPeople(sandboxes, ENRICHED + LATER).map(
      (p, i) => hubspot.createContact({ email: p.workEmail!, numemployees: i % 2 ? '5-25' : '50-100' }).id,
    );
    ids.push(hubspot.createContact({ firstname: 'Keyless', numemployees: '50-100' }).id);
    hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);

    const started = await running.admin('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      limit: ENRICHED,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await backfillDone();
    await settled(stack, 20_000);
    const enriched = ids.slice(0, ENRICHED);
    expect(enriched.every((id) => filled(contact(id).crm_enrich_partner_id))).toBe(true);
    // The partner knows no phone for some of them: the gap the earlier report charged again.
    const noPhone = enriched.filter((id) => !filled(contact(id).phone));
    expect(noPhone.length).toBeGreaterThan(0);

    const report = await scan();
    const phone = report.properties.find((p) => p.property === 'phone')!;
    const later = ids.slice(ENRICHED, ENRICHED + LATER);
    expect(phone.fillable).toBe(noPhone.length + later.filter((id) => !filled(contact(id).phone)).length);
    expect(phone.credits).toBe(later.length);
    expect(report).toMatchObject({ neverEnriched: LATER + 1, stale: 0, credits: LATER });
  }, 60_000);

  it('previews the report credits for a missing property, on the CLI too', async () => {
    const report = (await stack.running.admin<Report>('GET', '/data-health/hubspot/contact')).body;
    const phone = report.properties.find((p) => p.property === 'phone')!;
    const preview = await dryRun({ missing: 'phone' });
    expect(preview).toMatchObject({ listed: ids.length, wouldEnrich: LATER, credits: phone.credits });

    const result = await runCli(
      ['backfill', '--url', stack.running.url, '--connection', 'hubspot', '--object', 'contact'].concat(
        '--missing',
        'phone',
        '--dry-run',
      ),
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('records missing phone that a lookup could fill');
    expect(result.output).toContain(`would spend at most ${phone.credits} credits`);
  }, 60_000);

  it('counts contacts enriched longer ago than the refresh interval as stale, and their gaps as credits', async () => {
    const { running } = stack;
    const enriched = ids.slice(0, ENRICHED);
    await schemaQuery(
      running,
      `UPDATE $schema.enrichment_state SET last_enriched_at = now() - interval '400 days'
       WHERE connection = 'hubspot' AND object_type = 'contact' AND record_id = ANY($1)`,
      [enriched.slice(0, 4)],
    );
    const report = await scan();
    expect(report.stale).toBe(4);
    const phone = report.properties.find((p) => p.property === 'phone')!;
    const staleNoPhone = enriched.slice(0, 4).filter((id) => !filled(contact(id).phone)).length;
    expect(phone.credits).toBe(LATER + staleNoPhone);
    expect((await dryRun({ missing: 'phone' })).credits).toBe(phone.credits);
  }, 60_000);

  it('fills only the segment: contacts without a job title at companies of 50+ employees', async () => {
    const later = ids.slice(ENRICHED, ENRICHED + LATER);
    const segment = later.filter((id) => !filled(contact(id).jobtitle) && contact(id).numemployees === '50-100');
    expect(segment.length).toBeGreaterThan(0);
    const body = { missing: 'jobtitle', where: ['numemployees>=50'] };
    expect(await dryRun(body)).toMatchObject({ wouldEnrich: segment.length, credits: segment.length });

    const started = await stack.running.admin<Progress>('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      ...body,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.segment).toEqual({
      missing: 'jobtitle',
      where: [{ property: 'numemployees', op: '>=', value: '50' }],
    });
    const done = await backfillDone();
    expect(done.enqueued).toBe(segment.length);
    await settled(stack, 20_000);
    expect(segment.every((id) => filled(contact(id).crm_enrich_partner_id))).toBe(true);
    const outside = later.filter((id) => !segment.includes(id));
    expect(outside.filter((id) => filled(contact(id).crm_enrich_partner_id))).toEqual([]);
  }, 60_000);

  it('refuses an unmapped property, a condition on an unknown property or malformed, naming the field', async () => {
    const { running } = stack;
    type Refusal = { error: { code: string; message: string; details: { field: string } } };
    const post = (body: Record<string, unknown>) =>
      running.admin<Refusal>('POST', '/backfills', { connection: 'hubspot', object: 'contact', ...body });
    const missing = await post({ missing: 'shoesize' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_segment', details: { field: 'missing' } });
    expect(missing.body.error.message).toContain('missing: "shoesize" is not a mapped property of hubspot contact');
    const unknown = await post({ where: ['shoesize>=40'] });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_segment', details: { field: 'where' } });
    expect(unknown.body.error.message).toContain('"shoesize" is not a property of hubspot contact');
    const malformed = await running.admin<Refusal>('POST', '/backfills/dry-run', {
      connection: 'hubspot',
      object: 'contact',
      where: ['numemployees ~ 50'],
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.field).toBe('where');
    const shape = await post({ where: 'numemployees>=50' });
    expect(shape.status).toBe(400);
    expect(shape.body.error.details.field).toBe('where');

    const cli = await runCli(
      ['backfill', '--url', running.url, '--connection', 'hubspot', '--object', 'contact', '--where', 'x ~ 1'],
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' },
    );
    expect(cli.code).toBe(1);
    expect(cli.output).toContain('--where: "x ~ 1" is not a condition');
    const cliMissing = await runCli(
      ['backfill', '--url', running.url, '--connection', 'hubspot', '--object', 'contact', '--missing', 'shoe'],
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' },
    );
    expect(cliMissing.code).toBe(1);
    expect(cliMissing.output).toContain('--missing: "shoe" is not a mapped property');
  }, 60_000);

  it('resumes a stopped fill from its stored cursor with its segment', async () => {
    const { running } = stack;
    const { ports, connectors, mappings, store } = running.service.parts;
    const connector = connectors.find((c) => c.connection === 'hubspot')!;
    const mapping = mappings.get('hubspot', 'contact')!;
    let rooms = 0;
    let abort = new AbortController();
    const deps = {
      kv: ports.kv,
      queue: ports.enqueue,
      stale: ports.stale,
      states: (c: string, o: string, recordIds: string[]) => ports.state.getMany(c, o, recordIds),
      cached: cachedAnswers(store.cache),
      refreshAfterDays: 30,
      pageSize: 5,
      room: async () => {
        if (++rooms === 2) abort.abort();
      },
    };
    const segment = { missing: 'mobilephone', where: [{ property: 'numemployees', op: '>=' as const, value: '50' }] };
    // Never enriched, or enriched 400 days ago (the first four): a lookup could bring a mobile phone.
    const mayFill = (id: string) => !filled(contact(id).crm_enrich_partner_id) || ids.indexOf(id) < 4;
    const expected = ids.filter(
      (id) => contact(id).numemployees === '50-100' && !filled(contact(id).mobilephone) && filled(contact(id).email),
    );
    const run = await startBackfill(deps, 'hubspot', 'contact', null, null, segment);
    const stopped = await driveBackfill(deps, connector, mapping, run, abort.signal);
    expect(stopped).toMatchObject({ status: 'running', listed: 5 });
    const stored = (await readBackfill(ports.kv, 'hubspot', 'contact'))!;
    expect(stored).toMatchObject({ status: 'running', segment, cursor: stopped.cursor });
    abort = new AbortController();
    const resumed = await driveBackfill(deps, connector, mapping, stored, abort.signal);
    expect(resumed.status).toBe('listed');
    expect(resumed.listed).toBe(ids.length);
    expect(resumed.enqueued).toBe(expected.filter(mayFill).length);
    expect(expected.filter(mayFill).length).toBeLessThan(expected.length);
  }, 60_000);
});

describe('fill the gaps on Salesforce', () => {
  const stack = useStack({ sandboxes: { people: 200, companies: 40 } });

  it('reads only the segment, through a SOQL WHERE', async () => {
    const { sandboxes, running } = stack;
    sandboxes.salesforce.setOutboundUrl(undefined);
    const salesforce = new Connection({
      instanceUrl: sandboxes.salesforce.url,
      accessToken: sandboxes.salesforce.accessToken,
      version: '62.0',
    });
    const people = partnerPeople(sandboxes, 9);
    await salesforce
      .sobject('Contact')
      .create(
        people.map((p, i) => ({ LastName: `Person ${i}`, Email: p.workEmail!, ...(i < 4 ? { Title: 'Buyer' } : {}) })),
      );
    await salesforce.sobject('Account').create([
      { Name: 'Small', Website: 'https://small.example', NumberOfEmployees: 10 },
      { Name: 'Large', Website: 'https://large.example', NumberOfEmployees: 500 },
      { Name: 'Larger', Website: 'https://larger.example', NumberOfEmployees: 900, Sic: '5411' },
    ]);
    const contacts = await running.admin<DryRun>('POST', '/backfills/dry-run', {
      connection: 'salesforce',
      object: 'Contact',
      missing: 'Title',
    });
    expect(contacts.status, JSON.stringify(contacts.body)).toBe(200);
    // Listed: only the five without a title, as the query asked; all five can be filled.
    expect(contacts.body).toMatchObject({ listed: 5, wouldEnrich: 5, credits: 5 });
    const accounts = await running.admin<DryRun>('POST', '/backfills/dry-run', {
      connection: 'salesforce',
      object: 'Account',
      missing: 'Sic',
      where: ['NumberOfEmployees>=50'],
    });
    expect(accounts.body).toMatchObject({ listed: 1, wouldEnrich: 1 });
  }, 60_000);
});
