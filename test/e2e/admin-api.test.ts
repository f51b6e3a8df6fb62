/**
 * The admin API over real HTTP: the bearer check, mappings (list, show, validate, save, roll back,
 * each change applied to the next enrichment), preview on a real record that writes nothing, stats
 * that agree with what the sandboxes saw, and one error shape everywhere.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, schemaQuery, settled, stateReaches } from './probes.js';
import { ADMIN_TOKEN, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface VersionView {
  version: number;
  author: string;
  comment: string;
  active?: boolean;
}
interface MappingView {
  active: VersionView & { crm: string; objectType: string; document: string };
  versions: VersionView[];
}
interface PreviewRow {
  property: string;
  current: string | null;
  new: string | null;
  rule: string;
  outcome: string;
}

const HEADLINE_FIELD =
  '  - target: crm_enrich_headline\n    from: headline\n    custom: { label: Headline, type: string }\n';

describe.skipIf(skip)('admin API', () => {
  // Employers' companies are created and counted in employers.test.ts; this file counts contacts alone.
  const stack = useStack({
    service: { env: { HUBSPOT_CREATE_COMPANIES: 'false', SALESFORCE_CREATE_ACCOUNTS: 'false' } },
  });
  let offset = 300;
  const created = { enriched: 0, noMatch: 0 };

  /** Creates a contact for the next partner person and waits until it is enriched. */
  async function enrichedContact() {
    const [p] = partnerPeople(stack.sandboxes, 1, offset++);
    const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
    await settled(stack);
    created.enriched++;
    return { id, person: p!.person, contact: stack.sandboxes.hubspot.getContact(id)! };
  }

  const raw = (path: string, init: RequestInit = {}) => fetch(`${stack.running.url}/admin/api${path}`, init);
  const expectError = (res: { status: number; body: unknown }, status: number, code: string) => {
    expect(res.status).toBe(status);
    const { error } = res.body as ErrorBody;
    expect(error.code).toBe(code);
    expect(typeof error.message).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
    return error;
  };

  it('refuses requests without the token or with a wrong one (401)', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer not-the-token' },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
    ] as Record<string, string>[]) {
      const res = await raw('/mappings', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectError({ status: res.status, body: await res.json() }, 401, 'unauthorized');
    }
    const ok = await raw('/mappings', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.status).toBe(200);
  });

  it('answers with headers that keep a browser from sniffing, framing or referring, naming no framework', async () => {
    for (const res of [
      await raw('/mappings', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      await raw('/mappings', {}),
      await fetch(`${stack.running.url}/healthz`),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('lists the active mappings and shows one with its versions', async () => {
    const list = await stack.running.admin<{
      mappings: { crm: string; object: string; version: number; author: string }[];
    }>('GET', '/mappings');
    expect(list.status).toBe(200);
    const names = list.body.mappings.map((m) => `${m.crm}/${m.object}`).sort();
    expect(names).toEqual(
      ['hubspot/company', 'hubspot/contact', 'salesforce/Account', 'salesforce/Contact', 'salesforce/Lead'].sort(),
    );
    const contact = list.body.mappings.find((m) => m.crm === 'hubspot' && m.object === 'contact')!;
    expect(contact.version).toBe(1);
    expect(contact.author).toMatch(/^file:.*contact\.yaml$/);

    const show = await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact');
    expect(show.status).toBe(200);
    expect(show.body.active.version).toBe(1);
    expect(show.body.active.document).toContain(HEADLINE_FIELD);
    expect(show.body.versions).toEqual([expect.objectContaining({ version: 1, active: true })]);

    const missing = await stack.running.admin('GET', '/mappings/hubspot/deal');
    expect(expectError(missing, 404, 'not_found').details).toMatchObject({ field: 'object' });
  });

  it('validates a candidate: a good one passes, a bad one is 422 naming the field path', async () => {
    const { active } = (await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body;
    const good = await stack.running.admin<{ valid: boolean; crm: string; object: string }>(
      'POST',
      '/mappings/validate',
      { document: active.document },
    );
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ valid: true, crm: 'hubspot', object: 'contact' });

    const invalid = async (document: string) => {
      expect(document).not.toBe(active.document);
      const error = expectError(
        await stack.running.admin('POST', '/mappings/validate', { document }),
        422,
        'invalid_mapping',
      );
      return (error.details!.problems as { field: string; code: string }[]).map((p) => p.field);
    };
    expect(
      await invalid(
        active.document.replace(
          '- { target: jobtitle, from: position }',
          '- { target: jobtitle, from: position, rule: sometimes }',
        ),
      ),
    ).toEqual(['fields > jobtitle > rule']);
    // Every problem of the candidate at once, each naming its field.
    const twoUnknownSources = active.document
      .replace('from: seniority', 'from: seniority_level')
      .replace('from: department', 'from: departmnt');
    expect(await invalid(twoUnknownSources)).toEqual(
      expect.arrayContaining(['fields > hs_seniority > from', 'fields > crm_enrich_department > from']),
    );

    const noDocument = await stack.running.admin('POST', '/mappings/validate', {});
    expect(expectError(noDocument, 400, 'invalid_request').details).toMatchObject({ field: 'document' });
  });

  it('saves a new version that the next enrichment uses, and rolls back to the previous one', async () => {
    const { active } = (await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body;
    const withoutHeadline = active.document.replace(HEADLINE_FIELD, '');
    expect(withoutHeadline).not.toBe(active.document);

    const noAuthor = await stack.running.admin('POST', '/mappings/hubspot/contact/versions', {
      document: withoutHeadline,
      comment: 'x',
    });
    expect(expectError(noAuthor, 400, 'invalid_request').details).toMatchObject({ field: 'author' });
    const wrongObject = await stack.running.admin('POST', '/mappings/hubspot/company/versions', {
      document: withoutHeadline,
      author: 'ops@example.com',
    });
    expect(expectError(wrongObject, 400, 'invalid_request').details).toMatchObject({ field: 'document' });
    const invalid = await stack.running.admin('POST', '/mappings/hubspot/contact/versions', {
      document: withoutHeadline.replace('from: position', 'from: no_such_field'),
      author: 'ops@example.com',
    });
    // Worded for the caller of the API, not for someone restarting the service.
    expect(expectError(invalid, 422, 'invalid_mapping').message).toMatch(
      /^the mapping has 1 problem:\n.*: fields > jobtitle > from: "no_such_field" is not a field/,
    );

    const saved = await stack.running.admin<{ active: VersionView }>('POST', '/mappings/hubspot/contact/versions', {
      document: withoutHeadline,
      author: 'ops@example.com',
      comment: 'headline is noise',
    });
    expect(saved.status).toBe(201);
    expect(saved.body.active).toMatchObject({ version: 2, author: 'ops@example.com', comment: 'headline is noise' });
    const shown = (await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body;
    expect(shown.active.version).toBe(2);
    expect(shown.versions.map((v) => [v.version, v.active])).toEqual(
      expect.arrayContaining([
        [1, false],
        [2, true],
      ]),
    );

    const underV2 = await enrichedContact();
    expect(underV2.contact.jobtitle).toBe(underV2.person.position);
    expect(underV2.contact.crm_enrich_headline ?? '').toBe('');

    const rolledBack = await stack.running.admin<{ active: VersionView }>(
      'POST',
      '/mappings/hubspot/contact/rollback',
      { version: 1 },
    );
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.active.version).toBe(1);
    expect((await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body.active.version).toBe(1);
    const underV1 = await enrichedContact();
    expect(underV1.person.headline).toBeTruthy();
    expect(underV1.contact.crm_enrich_headline).toBe(underV1.person.headline);

    const noSuchVersion = await stack.running.admin('POST', '/mappings/hubspot/contact/rollback', { version: 99 });
    const missing = expectError(noSuchVersion, 404, 'not_found');
    expect(missing.message).toBe(
      'version: hubspot/contact has no version 99; GET /admin/api/mappings/hubspot/contact/versions lists its versions',
    );
    expect(missing.details).toMatchObject({ field: 'version' });
    const badVersion = await stack.running.admin('POST', '/mappings/hubspot/contact/rollback', { version: 'one' });
    expect(expectError(badVersion, 400, 'invalid_request').details).toMatchObject({ field: 'version' });
  });

  // The preview's rows give property, current value, new value, rule and outcome.
  it('previews a candidate on a real record, and writes nothing', async () => {
    const { id, person, contact } = await enrichedContact();
    expect(person.headline).toBeTruthy();
    const { active } = (await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body;
    const candidate = active.document.replace(
      '- { target: jobtitle, from: position }',
      '- { target: jobtitle, from: headline, rule: overwrite }',
    );
    const before = {
      updates: hubspotCalls(stack.sandboxes, 'batch/update'),
      audit: (await schemaQuery<{ n: number }>(stack.running, `SELECT count(*)::int AS n FROM $schema.audit_log`))[0]!
        .n,
      state: await stack.running.service.parts.store.state.get({
        connection: 'hubspot',
        objectType: 'contact',
        recordId: id,
      }),
    };

    const res = await stack.running.admin<{
      record: { id: string };
      match: { by: string } | null;
      rows: PreviewRow[];
      wouldWrite: Record<string, string>;
    }>('POST', '/mappings/preview', {
      document: candidate,
      crm: 'hubspot',
      object: 'contact',
      recordId: id,
    });
    expect(res.status).toBe(200);
    expect(res.body.record.id).toBe(id);
    expect(res.body.match?.by).toBe('id');
    const jobtitle = res.body.rows.find((r) => r.property === 'jobtitle');
    expect(jobtitle).toEqual({
      property: 'jobtitle',
      current: person.position,
      new: person.headline,
      rule: 'overwrite',
      outcome: 'write',
      reason: expect.any(String),
    });
    expect(res.body.rows.find((r) => r.property === 'firstname')).toMatchObject({
      current: contact.firstname,
      new: person.first_name,
      rule: 'fill_empty',
      outcome: 'unchanged',
    });
    // Exactly what a run would write: the changed property and the enriched-at stamp that goes with it.
    expect(res.body.wouldWrite).toEqual({
      jobtitle: person.headline,
      crm_enrich_enriched_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}/),
    });
    expect(res.body.rows.find((r) => r.property === 'crm_enrich_enriched_at')).toMatchObject({
      outcome: 'write',
      reason: 'stamped because other properties are written',
    });

    const activePreview = await stack.running.admin<{ rows: PreviewRow[]; wouldWrite: Record<string, string> }>(
      'POST',
      '/mappings/preview',
      { crm: 'hubspot', object: 'contact', recordId: id },
    );
    expect(activePreview.body.wouldWrite).toEqual({});
    expect(activePreview.body.rows.length).toBeGreaterThan(5);

    expect(hubspotCalls(stack.sandboxes, 'batch/update')).toBe(before.updates);
    expect(stack.sandboxes.hubspot.getContact(id)!.jobtitle).toBe(person.position);
    expect(
      (await schemaQuery<{ n: number }>(stack.running, `SELECT count(*)::int AS n FROM $schema.audit_log`))[0]!.n,
    ).toBe(before.audit);
    expect(
      await stack.running.service.parts.store.state.get({ connection: 'hubspot', objectType: 'contact', recordId: id }),
    ).toEqual(before.state);

    const absent = await stack.running.admin('POST', '/mappings/preview', {
      crm: 'hubspot',
      object: 'contact',
      recordId: '999999999',
    });
    expect(expectError(absent, 404, 'not_found').details).toMatchObject({ field: 'recordId' });
    const noRecord = await stack.running.admin('POST', '/mappings/preview', { crm: 'hubspot', object: 'contact' });
    expect(expectError(noRecord, 400, 'invalid_request').details).toMatchObject({ field: 'recordId' });
  });

  it('reports stats that agree with what happened', async () => {
    const { id: missId } = stack.sandboxes.hubspot.createContact({ email: 'unknown.person@nowhere-listed.example' });
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: missId }, 'no_match');
    created.noMatch++;
    await settled(stack);

    const res = await stack.running.admin<{
      queueDepth: number;
      deadLetters: number;
      jobsByOutcome: Record<string, number>;
      records: Record<string, number>;
      matchRate: number;
      today: {
        partnerLookups: number;
        cacheHits: number;
        budget: number;
        budgetLeft: number;
        hardCap: number;
        bulkPaused: boolean;
      };
      crmCalls: Record<string, { calls: number; byOperation: Record<string, number> }>;
    }>('GET', '/stats');
    expect(res.status).toBe(200);
    const stats = res.body;
    expect(stats.queueDepth).toBe(0);
    expect(stats.deadLetters).toBe(0);
    expect(stats.records).toMatchObject({ enriched: created.enriched, no_match: created.noMatch, failed: 0 });
    expect(stats.matchRate).toBeCloseTo(created.enriched / (created.enriched + created.noMatch), 5);
    expect(stats.jobsByOutcome.enriched).toBe(created.enriched);
    expect(stats.jobsByOutcome.no_match).toBe(created.noMatch);
    // Every partner request the sandbox served was one lookup counted against today's budget.
    expect(stats.today.partnerLookups).toBe(partnerServed(stack.sandboxes));
    expect(stats.today.cacheHits).toBeGreaterThan(0);
    expect(stats.today.budgetLeft).toBe(stats.today.budget - stats.today.partnerLookups);
    expect(stats.today.bulkPaused).toBe(false);
    expect(stats.crmCalls.hubspot!.byOperation.batch_update).toBe(hubspotCalls(stack.sandboxes, 'batch/update'));
    expect(stats.crmCalls.hubspot!.byOperation.batch_read).toBe(hubspotCalls(stack.sandboxes, 'batch/read'));
  });

  it('answers every error as { error: { code, message, details } }', async () => {
    expectError(await stack.running.admin('GET', '/no-such-route'), 404, 'not_found');
    const badJson = await raw('/mappings/validate', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"document": ',
    });
    expect(
      expectError({ status: badJson.status, body: await badJson.json() }, 400, 'invalid_request').details,
    ).toMatchObject({ field: 'body' });
    const unknownObject = await stack.running.admin('POST', '/records/hubspot/deal/1/enrich');
    expect(expectError(unknownObject, 404, 'not_found').details).toMatchObject({ field: 'object' });
    const unknownRecord = await stack.running.admin('GET', '/records/hubspot/contact/424242');
    expect(expectError(unknownRecord, 404, 'not_found').details).toMatchObject({ field: 'id' });
  });

  it('answers generated bodies on every write endpoint with a 4xx naming the problem, never a 5xx', async () => {
    const body = fc.oneof(
      fc.json().map((j) => ({ text: j, json: true })),
      fc.string({ maxLength: 300 }).map((t) => ({ text: t, json: false })),
      fc
        .record(
          {
            document: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
            author: fc.oneof(fc.string(), fc.constant(null)),
            comment: fc.string(),
            version: fc.oneof(fc.integer(), fc.string()),
            ids: fc.array(fc.string()),
            connection: fc.string(),
            object: fc.string(),
            limit: fc.oneof(fc.integer(), fc.string()),
            crm: fc.string(),
            recordId: fc.string(),
          },
          { requiredKeys: [] },
        )
        .map((o) => ({ text: JSON.stringify(o), json: true })),
    );
    const paths = [
      '/mappings/validate',
      '/mappings/preview',
      '/mappings/hubspot/contact/versions',
      '/mappings/hubspot/contact/rollback',
      '/dead-letters/replay',
      '/backfills',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, async (path, { text, json }) => {
        const res = await raw(path, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': json ? 'application/json' : 'text/plain' },
          body: text,
        });
        expect(res.status, `${path} ${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          const { error } = (await res.json()) as ErrorBody;
          expect(error.code.length).toBeGreaterThan(0);
          expect(error.message.length).toBeGreaterThan(0);
        } else await res.arrayBuffer();
      }),
      { numRuns: 60 },
    );
  });

  it('answers a YAML alias bomb with 422 naming the problem and its line, quickly', async () => {
    const bomb = [
      'crm: hubspot',
      'object: contact',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    const started = Date.now();
    const res = await stack.running.admin('POST', '/mappings/validate', { document: bomb });
    expect(Date.now() - started).toBeLessThan(2_000);
    expectError(res, 422, 'invalid_mapping');
    expect(JSON.stringify(res.body)).toMatch(/alias.*\(line 4\)/i);
  });

  // Last in this file: the address stays throttled for up to a minute afterwards.
  it('slows down an address that sends wrong tokens: 429 with Retry-After, the right token included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await raw('/mappings', { headers: { authorization: `Bearer wrong-${i}` } })).status);
    // Ten wrong tokens a minute from one address (an earlier test sent one): then 429 and only 429.
    const first429 = statuses.indexOf(429);
    expect(first429).toBeGreaterThanOrEqual(9);
    expect(first429).toBeLessThanOrEqual(10);
    expect(statuses.slice(0, first429).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(first429).every((s) => s === 429)).toBe(true);
    const right = await raw('/mappings', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(right.status).toBe(429);
    const wait = Number(right.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expectError({ status: right.status, body: await right.json() }, 429, 'too_many_attempts');
  });
});
