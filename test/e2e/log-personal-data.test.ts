/**
 * A whole run of the service, as a process at debug level, greps clean of every personal value it
 * handled: the e-mail addresses and names of the contacts it enriched, and the author and comment of
 * a mapping version an admin saved. The run includes a restart, where the service used to log the
 * author of the admin's version ("the mapping file changed, but a version saved by an admin stays
 * active"); the restart also changes the retry delay, which the log must report as a policy update.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_URL, serverUnavailable } from '../support/db.js';
import { exitWithin, killAll, processSchema, serviceEnv, startServiceProcess } from './process.js';
import { eventually, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the log test: ${skip}`);

const AUTHOR = 'dana.whitfield@acme-admins.example';
const COMMENT = 'Dana asked to keep Priya Raman as owner of the Wexford account';
const CONTACTS = 8;

describe.skipIf(skip)('personal data in the log', () => {
  let sandboxes: Sandboxes;
  const schema = processSchema();
  let log = '';

  beforeAll(async () => {
    sandboxes = await startSandboxes({ people: 500, companies: 100 });
  });
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  async function enrichedCount(ids: string[]): Promise<number> {
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".enrichment_state WHERE record_id = ANY($1) AND status = 'enriched'`,
        [ids],
      );
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  it('logs none of the e-mails, names, mapping author or comment of a run with a restart', async () => {
    const env = serviceEnv(sandboxes, schema, { LOG_LEVEL: 'debug' });
    const first = await startServiceProcess(env);
    sandboxes.hubspot.setWebhookUrl(`${first.url}/webhooks/hubspot`);

    // An admin saves a version of the contact mapping that differs from the file, signing it with an e-mail.
    const document = `${readFileSync('mappings/hubspot/contact.yaml', 'utf8')}\n# tuned for the sales team\n`;
    const saved = await first.admin('POST', '/mappings/hubspot/contact/versions', {
      document,
      author: AUTHOR,
      comment: COMMENT,
    });
    expect(saved.status).toBe(201);

    const people = partnerPeople(sandboxes, CONTACTS);
    const ids = people.map((p) => sandboxes.hubspot.createContact({ email: p.workEmail! }).id);
    await eventually(
      async () => ((await enrichedCount(ids)) === CONTACTS ? true : undefined),
      30_000,
      'the contacts to be enriched',
    );
    first.kill('SIGTERM');
    expect(await exitWithin(first, 20_000)).toEqual({ code: 0, signal: null });
    sandboxes.hubspot.setWebhookUrl(undefined);

    // Started again, the file still differs from the admin's version, and the retry delay has changed.
    const second = await startServiceProcess({ ...env, CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: '7' });
    await eventually(
      () => (second.output().includes('a version saved by an admin stays active') ? true : undefined),
      10_000,
      'the start-up warning',
    );
    second.kill('SIGTERM');
    expect(await exitWithin(second, 20_000)).toEqual({ code: 0, signal: null });
    log = first.output() + second.output();

    // The run did log at debug level, records included: the grep below has something to look through.
    expect(log.split('\n').filter((l) => l.includes('"level":20')).length).toBeGreaterThan(0);
    expect(log).toContain('enriched a record');
    const personal = [
      AUTHOR,
      'dana.whitfield',
      COMMENT,
      'Priya Raman',
      ...people.map((p) => p.workEmail!),
      ...people.flatMap((p) =>
        [p.person.first_name, p.person.last_name]
          .filter((n): n is string => !!n && n.length > 3)
          .map((n) => new RegExp(`\\b${n}\\b`)),
      ),
    ];
    for (const value of personal) {
      if (typeof value === 'string') expect(log, `the log holds "${value}"`).not.toContain(value);
      else expect(log, `the log holds ${String(value)}`).not.toMatch(value);
    }
  }, 120_000);

  it('says at the restart which queue setting changed, from what to what', () => {
    expect(log).toMatch(
      /the stored policy of queue enrich\.hubspot\.contact was updated to the settings: CRM_ENRICH_JOB_RETRY_DELAY_SECONDS 10 -> 7/,
    );
  });
});
