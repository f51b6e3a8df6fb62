/**
 * The service as a process: SIGTERM with a backfill in flight stops claiming, settles or releases
 * what it holds and exits 0, and a restart finishes the work without waiting for any claim to expire;
 * invalid mappings or configuration stop `serve` with exit 1 and a message naming the problem.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import {
  exitWithin,
  jobStates,
  killAll,
  maxRetryCount,
  processSchema,
  runCli,
  serviceEnv,
  startServiceProcess,
} from './process.js';
import { partnerServed } from './probes.js';
import { eventually, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the shutdown and start-up tests: ${skip}`);

const CONTACTS = 300;
const QUEUE = 'enrich.hubspot.contact';

describe.skipIf(skip)('the service process', () => {
  let sandboxes: Sandboxes;
  const schemas: string[] = [];
  const tempDirs: string[] = [];

  beforeAll(async () => {
    sandboxes = await startSandboxes();
  });
  afterAll(async () => {
    await killAll(schemas);
    await sandboxes?.close();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'on SIGTERM with a backfill in flight exits 0 holding no claim, ' +
      'and a restart finishes with nothing lost and every credit counted once',
    async () => {
      const servedBefore = partnerServed(sandboxes);
      const people = partnerPeople(sandboxes, CONTACTS);
      const contacts = people.map((p) => ({
        id: sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
        profile: p.person,
      }));
      sandboxes.hubspot.recordWrites();
      const schema = processSchema();
      schemas.push(schema);
      // Claims expire only after the default five minutes: the restart can finish in time only if the
      // stopping service left no job claimed.
      const env = serviceEnv(sandboxes, schema, { CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: '1' });

      const first = await startServiceProcess(env);
      expect((await first.admin('POST', '/backfills', { connection: 'hubspot', object: 'contact' })).status).toBe(202);
      await eventually(
        () => (sandboxes.hubspot.writes().length > 0 ? true : undefined),
        20_000,
        'the first write of the backfill',
      );
      first.kill('SIGTERM');
      const exit = await exitWithin(first, 20_000);
      expect(exit, `the service did not exit within 20 s of SIGTERM:\n${first.output()}`).toEqual({
        code: 0,
        signal: null,
      });
      expect(first.output()).toContain('shutting down');
      expect(first.output()).not.toContain('Demo records arrive');

      const states = await jobStates(schema, QUEUE);
      expect(states.active ?? 0).toBe(0);
      // Put back, not failed: a deploy spends no attempt.
      expect(await maxRetryCount(schema, QUEUE)).toBe(0);
      const written = new Set(sandboxes.hubspot.writes().map((w) => w.id));
      expect(written.size).toBeLessThan(CONTACTS);

      const second = await startServiceProcess(env);
      await eventually(
        async () =>
          (await second.admin<{ done: boolean }>('GET', '/backfills/hubspot/contact')).body.done ? true : undefined,
        30_000,
        'the backfill to finish after the restart',
      );
      for (const { id, profile } of contacts)
        expect(sandboxes.hubspot.getContact(id)?.crm_enrich_partner_id, `contact ${id}`).toBe(profile.id);
      const keys = sandboxes.hubspot
        .writes()
        .flatMap((w) => Object.entries(w.properties).map(([p, v]) => `${w.id} ${p}=${String(v)}`));
      expect(keys.length).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(keys.length);
      // The deploy spent no credit it did not count, and counted none the partner did not serve.
      // Compared once the service is idle: its employers' company lookups may go out after the last
      // contact is written (bulk domains wait up to 5 s to share a search), and a lookup in flight is
      // counted before the partner serves it.
      let counted = 0;
      let served = 0;
      await eventually(
        async () => {
          const stats = await second.admin<{ queueDepth: number; today: { partnerLookups: number } }>('GET', '/stats');
          counted = stats.body.today.partnerLookups;
          served = partnerServed(sandboxes) - servedBefore;
          return stats.body.queueDepth === 0 && counted === served ? true : undefined;
        },
        20_000,
        'the service to be idle with its credit count equal to the requests the partner served',
      ).catch(() => undefined);
      expect(counted).toBeGreaterThanOrEqual(CONTACTS);
      expect(counted).toBe(served);

      second.kill('SIGTERM');
      expect(await exitWithin(second, 20_000)).toEqual({ code: 0, signal: null });
    },
    90_000,
  );

  it("after a SIGKILL, another instance takes the dead one's jobs within seconds, spending no attempt", async () => {
    const people = partnerPeople(sandboxes, CONTACTS, CONTACTS);
    const contacts = people.map((p) => ({
      id: sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
      profile: p.person,
    }));
    sandboxes.hubspot.recordWrites();
    const ours = new Set(contacts.map((c) => c.id));
    const oursWritten = () => sandboxes.hubspot.writes().filter((w) => ours.has(w.id)).length;
    const schema = processSchema();
    schemas.push(schema);
    // Claims expire only after the default five minutes: the jobs come back in time only through heartbeats.
    // (Employers' companies are created and counted in employers.test.ts; here the contacts alone.)
    const env = serviceEnv(sandboxes, schema, { CRM_ENRICH_HEARTBEAT_SECONDS: '1', HUBSPOT_CREATE_COMPANIES: 'false' });
    const first = await startServiceProcess(env);
    expect((await first.admin('POST', '/backfills', { connection: 'hubspot', object: 'contact' })).status).toBe(202);
    await eventually(() => (oursWritten() > 0 ? true : undefined), 45_000, 'the first write of the backfill');
    first.kill('SIGKILL');
    await exitWithin(first, 5_000);
    const held = (await jobStates(schema, QUEUE)).active ?? 0;
    expect(held).toBeGreaterThan(0);
    // Bounded claims: the dead instance held at most two batches and a little room, not the backlog.
    expect(held).toBeLessThanOrEqual(2 * 100 + 10);

    const second = await startServiceProcess(env);
    // Counted from the moment the second instance is up (its start-up time depends on the machine):
    // the heartbeats give the jobs back within seconds, where the expiry would take five minutes.
    const upAt = Date.now();
    await eventually(
      async () => ((await jobStates(schema, QUEUE)).active ?? 0) === 0 || undefined,
      60_000,
      "the dead instance's claims to be handed out again",
    );
    const back = (Date.now() - upAt) / 1000;
    expect(back).toBeLessThan(60);
    await eventually(
      async () =>
        (await second.admin<{ done: boolean }>('GET', '/backfills/hubspot/contact')).body.done ? true : undefined,
      30_000,
      'the backfill to finish on the second instance',
    );
    await eventually(
      () => (contacts.every(({ id }) => sandboxes.hubspot.getContact(id)?.crm_enrich_partner_id) ? true : undefined),
      20_000,
      'every contact enriched',
    );
    for (const { id, profile } of contacts)
      expect(sandboxes.hubspot.getContact(id)?.crm_enrich_partner_id, `contact ${id}`).toBe(profile.id);
    expect(await maxRetryCount(schema, QUEUE)).toBe(0);
    second.kill('SIGTERM');
    expect(await exitWithin(second, 20_000)).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('refuses to start on an invalid mapping, printing file: path > key: message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-mappings-'));
    tempDirs.push(dir);
    cpSync('mappings', dir, { recursive: true });
    const file = join(dir, 'hubspot', 'contact.yaml');
    const text = readFileSync(file, 'utf8');
    const broken = text.replace(
      '{ target: firstname, from: first_name, rule: fill_empty }',
      '{ target: firstname, from: first_name, rule: fill_sometimes }',
    );
    expect(broken).not.toBe(text);
    writeFileSync(file, broken);

    const result = await runCli(['serve', '--no-demo', '--mappings', dir], {
      ...serviceEnv(sandboxes, processSchema()),
      PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      /hubspot\/contact\.yaml: fields > firstname > rule: rule must be one of overwrite, fill_empty, never, protect_edits/,
    );
    expect(result.output).not.toContain('crm-enrich started');
  });

  it('refuses to start on a bad environment value, naming the variable', async () => {
    const result = await runCli(['serve', '--no-demo'], { ...serviceEnv(sandboxes, processSchema()), PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/PORT: expected a whole number from 0 to 65535/);
  });
});
