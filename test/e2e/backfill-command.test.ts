/**
 * `crm-enrich backfill` against a running service: plain progress lines and a final "done" line when
 * stdout is not a terminal, exit 0; a second run enqueues nothing (every record is already enriched);
 * an object that is not mapped is refused with exit 1 and named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import {
  jobStates,
  killAll,
  processSchema,
  runCli,
  serviceEnv,
  startServiceProcess,
  type ServiceProcess,
} from './process.js';
import { ADMIN_TOKEN, eventually, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the backfill command tests: ${skip}`);

const CONTACTS = 150;

describe.skipIf(skip)('crm-enrich backfill', () => {
  let sandboxes: Sandboxes;
  let service: ServiceProcess;
  let cliEnv: Record<string, string>;
  const schema = processSchema();

  beforeAll(async () => {
    sandboxes = await startSandboxes();
    for (const p of partnerPeople(sandboxes, CONTACTS)) sandboxes.hubspot.createContact({ email: p.workEmail! });
    // One the partner does not know: enqueued, looked up, and ends as no_match.
    sandboxes.hubspot.createContact({ email: 'nobody@unknown-company.example' });
    // One without any match key: listed, never enqueued.
    sandboxes.hubspot.createContact({ firstname: 'Keyless' });
    service = await startServiceProcess(serviceEnv(sandboxes, schema));
    cliEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  const backfill = (...args: string[]) => runCli(['backfill', '--url', service.url, ...args], cliEnv);

  it('with --dry-run says what it would enrich, link and create, and enqueues nothing', async () => {
    const result = await backfill('--connection', 'hubspot', '--object', 'contact', '--dry-run');
    expect(result.code, result.output).toBe(0);
    const employers = new Set([
      ...partnerPeople(sandboxes, CONTACTS).map((p) => p.employer.domain),
      'unknown-company.example',
    ]);
    expect(result.output.trim().split('\n').slice(0, 5)).toEqual([
      // Two keys a record at most (the e-mail as a work address, then as a personal one), none cached yet.
      'would spend at most 302 credits',
      'dry run of a backfill of hubspot contact: nothing was enqueued',
      '  152 records listed: 151 would be enriched, 1 skipped (no match key, or already enriched)',
      "  151 would be linked with their employer's company: " +
        `0 of those companies exist, at most ${employers.size} would be created`,
      '  0 have a free-mail address or none: linked only if the partner names their employer',
    ]);
    expect(await jobStates(schema, 'enrich.hubspot.contact')).toEqual({});
    expect(Object.keys(sandboxes.hubspot.stats().byEndpoint).filter((k) => k.includes('/batch/'))).toEqual([]);
  });

  it("with --dry-run and --list counts only the list's members, the list given by its name", async () => {
    const members = [...sandboxes.hubspot.store.objects.contacts.keys()].slice(0, 3);
    sandboxes.hubspot.createList(members, { name: 'Trade fair 2026' });
    const result = await backfill(
      '--connection',
      'hubspot',
      '--object',
      'contact',
      '--list',
      'Trade fair 2026',
      '--dry-run',
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output.trim().split('\n').slice(0, 3)).toEqual([
      'would spend at most 6 credits',
      'dry run of a backfill of hubspot contact (members of list 1): nothing was enqueued',
      '  3 records listed: 3 would be enriched, 0 skipped (no match key, or already enriched)',
    ]);
    expect(await jobStates(schema, 'enrich.hubspot.contact')).toEqual({});
  });

  it('prints plain progress lines and a final done line, exits 0, and leaves every record enriched', async () => {
    const result = await backfill('--connection', 'hubspot', '--object', 'contact');
    expect(result.code, result.output).toBe(0);
    expect(result.output).not.toContain('\r');
    const lines = result.output.trim().split('\n');
    expect(
      lines.some((l) => /^\[[#-]{30}\] +\d+% \d+\/\d+ enriched, \d+ listed, \d+ skipped, [\d.]+\/s, ETA /.test(l)),
    ).toBe(true);
    expect(lines.at(-2)).toMatch(/^\[#{30}\] 100% 151\/151 enriched, 152 listed, 1 skipped/);
    expect(lines.at(-1)).toBe(
      'backfill of hubspot contact done: 151 records enqueued, 1 skipped (no match key, or already enriched)',
    );

    const people = partnerPeople(sandboxes, CONTACTS);
    const enriched = [...sandboxes.hubspot.store.objects.contacts.values()].filter((c) =>
      c.properties.get('crm_enrich_partner_id'),
    );
    expect(new Set(enriched.map((c) => c.properties.get('crm_enrich_partner_id')))).toEqual(
      new Set(people.map((p) => p.person.id)),
    );
  }, 60_000);

  it('enqueues nothing on a second run: records already enriched are skipped', async () => {
    // The employers' new companies are enriched after their people; wait for that to end first.
    await eventually(
      async () => {
        const states = await jobStates(schema, 'enrich.hubspot.company');
        return (states.created ?? 0) + (states.active ?? 0) + (states.retry ?? 0) === 0 ? true : undefined;
      },
      30_000,
      'the companies to be enriched',
    );
    sandboxes.hubspot.resetStats();
    const result = await backfill('--connection', 'hubspot', '--object', 'contact');
    expect(result.code, result.output).toBe(0);
    expect(result.output.trim().split('\n').at(-1)).toBe(
      'backfill of hubspot contact done: 0 records enqueued, 152 skipped (no match key, or already enriched)',
    );
    const byEndpoint = sandboxes.hubspot.stats().byEndpoint;
    expect(Object.keys(byEndpoint).filter((k) => k.startsWith('POST') && k.includes('/batch/'))).toEqual([]);
  });

  it("refreshes a list's enriched members with --list, counting those never enriched", async () => {
    const contacts = [...sandboxes.hubspot.store.objects.contacts.keys()];
    // Two enriched contacts and the one without a match key, made into a list over the sandbox's HTTP route.
    const made = await fetch(`${sandboxes.hubspot.url}/__sandbox/lists`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recordIds: [contacts[0], contacts[1], contacts.at(-1)], name: 'Stand visitors' }),
    });
    expect(made.status).toBe(201);
    const { listId } = (await made.json()) as { listId: string };
    const result = await runCli(
      ['refresh', '--url', service.url, '--connection', 'hubspot', '--object', 'contact', '--list', 'Stand visitors'],
      cliEnv,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output.trim()).toBe(
      `enqueued a refresh of 2 of the 3 members of hubspot contact list ${listId}; 1 were never enriched ` +
        '(a backfill with the same --list enriches them)',
    );
    const refused = await runCli(['refresh', '--url', service.url, '--list', 'Stand visitors'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('--list needs --connection and --object');
  });

  it('refuses an object that is not mapped, naming it, with exit 1', async () => {
    const result = await backfill('--connection', 'hubspot', '--object', 'widget');
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/"widget" is not a mapped object of hubspot; mapped: .*contact/);
  });
});
