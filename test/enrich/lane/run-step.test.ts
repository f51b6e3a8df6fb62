/**
 * The lane's run step, against the partner sandbox over HTTP (lookups cached and counted in a real
 * database) with fakes for the employer resolver and the job-change observer: a record's lookups and write
 * plan, its company link found meanwhile, the write first where the CRM links apart from the record and
 * after the link where the link is one of its fields, and a failed link returned, never thrown.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { storePorts } from '../../../src/app/store-ports.js';
import type { CrmConnector } from '../../../src/core/connector.js';
import type { Employer } from '../../../src/enrich/employers/employer-of.js';
import { plannedProperties, runRecord, type RunContext } from '../../../src/enrich/lane/run-step.js';
import type { Work } from '../../../src/enrich/lane/work.js';
import { PartnerLookups } from '../../../src/enrich/partner-lookups.js';
import { createRateLimiter } from '../../../src/limits/create-rate-limiter.js';
import { PartnerClient } from '../../../src/partner/client.js';
import { startPartnerSandbox, SANDBOX_KEY, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { describeEachBackend } from '../../support/db.js';
import { contactMapping, job } from './lane-fixtures.js';

let partner: PartnerSandbox;
const limiter = createRateLimiter({ id: `run-step-${Math.random()}`, max: 50, windowMs: 1000, marginMs: 0 });

beforeAll(async () => {
  partner = await startPartnerSandbox({ port: 0, companies: 20, people: 40 });
});

afterAll(async () => {
  await limiter.stop();
  await partner.close();
});

/** A person the partner knows by a work e-mail, at a company with a website. */
function knownPerson(): { email: string; position: string | undefined } {
  const person = partner.dataset.people.find((p) => p.emails?.work?.[0]?.value && p.current_company?.website)!;
  return { email: person.emails!.work![0]!.value!, position: person.position };
}

const linkInWrite = (inWrite: boolean) =>
  ({
    connection: 'hubspot',
    companyLinkInWrite: inWrite,
    companyLinkProperties: { contact: inWrite ? 'AccountId' : 'associatedcompanyid' },
  }) as unknown as CrmConnector;

describeEachBackend('the run step', (t) => {
  async function context(connector: CrmConnector, resolve: (e: Employer) => Promise<unknown>) {
    const ports = storePorts(await t.openStore());
    const client = new PartnerClient({ baseUrl: partner.url, apiKey: SANDBOX_KEY, limiter, maxRetries: 0 });
    const lookups = new PartnerLookups({
      client,
      cache: ports.cache,
      counters: ports.counters,
      dailyBudget: 1_000,
      hardCap: 1_000,
    });
    const observed: string[] = [];
    const ctx: RunContext = {
      connection: 'hubspot',
      objectType: 'contact',
      lookups,
      links: { connector, objectType: 'contact', employers: { resolve: resolve as never } },
      jobChanges: { observe: async (lookup) => void observed.push(lookup.record.id) },
    };
    return { ctx, observed };
  }

  const work = (email: string): Work => ({
    jobs: [job('j-1', '1', { reason: 'created' })],
    record: { id: '1', properties: { email } },
    state: undefined,
    priority: 'interactive',
  });

  it('plans the write from the lookup and lets it go before the link is found, where links are apart', async () => {
    let found!: (r: unknown) => void;
    const { ctx, observed } = await context(linkInWrite(false), () => new Promise((r) => (found = r)));
    const person = knownPerson();
    const ran = await runRecord(ctx, work(person.email), await contactMapping());
    expect(ran.plan.kind).toBe('planned');
    expect(ran.writesFirst).toBe(true);
    if (person.position) expect(plannedProperties(ran.plan, undefined)).toMatchObject({ jobtitle: person.position });
    expect(observed).toEqual(['1']);
    found({ kind: 'found', companyId: 'c-9', reason: 'matched by domain' });
    expect((await ran.following).link).toMatchObject({ action: 'associate', companyId: 'c-9' });
  });

  it('writes the link with the record where it is one of its fields', async () => {
    const { ctx } = await context(linkInWrite(true), async () => ({ kind: 'found', companyId: 'acc-1', reason: 'r' }));
    const ran = await runRecord(ctx, work(knownPerson().email), await contactMapping());
    expect(ran.writesFirst).toBe(false);
    const { link } = await ran.following;
    expect(link).toMatchObject({ action: 'write', property: 'AccountId', companyId: 'acc-1' });
    expect(plannedProperties(ran.plan, link)).toMatchObject({ AccountId: 'acc-1' });
  });

  it('returns a failed link as the following error, and a record the partner does not know as no match', async () => {
    const { ctx } = await context(linkInWrite(false), async () => {
      throw new Error('another instance is still creating the company');
    });
    const ran = await runRecord(ctx, work(knownPerson().email), await contactMapping());
    expect(await ran.following).toMatchObject({ error: expect.objectContaining({ message: expect.any(String) }) });

    const unknown = await runRecord(ctx, work('nobody@unknown-company.example'), await contactMapping());
    expect(unknown.plan.kind).toBe('no_match');
    expect(unknown.writesFirst).toBe(false);
  });
});
