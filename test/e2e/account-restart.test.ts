/**
 * A new user's `npm start`, Ctrl-C, `npm start` again on the same data directory, then the same data
 * directory pointed at a second HubSpot portal (issue 30). The embedded sandboxes keep their records,
 * so the state of every record stays with its own record and new contacts get their companies; the
 * second portal reuses the first one's record ids, and none of the first portal's state shows on them.
 * Run on the embedded database (PGlite in the data directory) and on the Postgres server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORTER_TOKEN } from '../../connectors/hubspot/sandbox/server.js';
import { toId18 } from '../../connectors/salesforce/ids.js';
import { SANDBOX_ORG_ID } from '../../connectors/salesforce/sandbox/server.js';
import { createDataset } from '../../src/partner/sandbox/dataset.js';
import { SERVER_URL, serverUnavailable, uniqueSchema } from '../support/db.js';
import { exitWithin, killAll, startServiceProcess, type ServiceProcess } from './process.js';
import { ADMIN_TOKEN, eventually } from './stack.js';

const serverSkip = await serverUnavailable();
const schemas: string[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await killAll(schemas);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** People of the embedded partner sandbox (its default dataset), one per employer. */
const people = (() => {
  const seen = new Set<string>();
  return createDataset().personRecords.filter((p) => {
    if (!p.workEmail || seen.has(p.employer.domain)) return false;
    seen.add(p.employer.domain);
    return true;
  });
})();

interface RecordView {
  state: { status: string; companyId: string | null } | null;
  company: { id: string; reason: string | null } | null;
  runs: { jobId: string | null }[];
  audit: { id: number; jobId: string | null }[];
}

/** The embedded portal's address from the start-up banner, which may be printed just after /readyz answers. */
async function sandboxUrl(service: ServiceProcess): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const url = /HubSpot sandbox: +(http:\/\/127\.0\.0\.1:\d+)/.exec(service.output())?.[1];
    if (url) return url;
    if (Date.now() > deadline) throw new Error(`no HubSpot sandbox address in the output:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A contact made by another app (an import tool), as a user would try it; its id. */
async function createContact(hubspot: string, email: string): Promise<string> {
  const res = await fetch(`${hubspot}/crm/v3/objects/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${IMPORTER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ properties: { email } }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The contact's primary company in the sandbox portal. */
async function primaryCompany(hubspot: string, id: string): Promise<string | null> {
  const res = await fetch(`${hubspot}/crm/v3/objects/contacts/${id}?properties=associatedcompanyid`, {
    headers: { authorization: 'Bearer sandbox-token' },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { properties: Record<string, string | null> }).properties.associatedcompanyid ?? null;
}

function view(service: ServiceProcess, id: string) {
  return service.admin<RecordView>('GET', `/records/hubspot/contact/${id}`);
}

/** The record view once the contact is enriched and linked with its company. */
function linkedView(service: ServiceProcess, id: string): Promise<RecordView> {
  return eventually(
    async () => {
      const { status, body } = await view(service, id);
      if (status !== 200 || body.state?.status !== 'enriched' || !body.company) return undefined;
      await new Promise((r) => setTimeout(r, 200));
      return body;
    },
    45_000,
    `contact ${id} to be enriched and linked`,
  );
}

/** Ctrl-C, and the clean exit it leads to. */
async function interrupt(service: ServiceProcess): Promise<void> {
  service.kill('SIGINT');
  expect(await exitWithin(service, 30_000)).toEqual({ code: 0, signal: null });
}

const backends: { name: string; skip?: string; env: () => Record<string, string> }[] = [
  { name: 'embedded database', env: () => ({}) },
  {
    name: 'Postgres server',
    skip: serverSkip,
    env: () => {
      const schema = uniqueSchema('acct');
      schemas.push(schema);
      return { DATABASE_URL: SERVER_URL, CRM_ENRICH_DB_SCHEMA: schema };
    },
  },
];

describe.each(backends)('state of one account across restarts ($name)', ({ skip, env: databaseEnv }) => {
  it.skipIf(skip)(
    'keeps every record its own state after a restart, and shows a second portal none of the first',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-account-'));
      dirs.push(dataDir);
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dataDir,
        CRM_ENRICH_DATA_DIR: dataDir,
        ADMIN_TOKEN,
        LOG_LEVEL: 'info',
        ...databaseEnv(),
      };
      const [ada, bob, cy, dee] = people;

      // First start: two contacts enriched and linked with their employers' companies.
      let service = await startServiceProcess(env, 90_000);
      let hubspot = await sandboxUrl(service);
      const first = await createContact(hubspot, ada!.workEmail!);
      const second = await createContact(hubspot, bob!.workEmail!);
      const before = { [first]: await linkedView(service, first), [second]: await linkedView(service, second) };
      expect(before[first]!.company!.id).not.toBe(before[second]!.company!.id);
      await interrupt(service);

      // Second start on the same data directory: the portal kept its records, and every record its own state.
      service = await startServiceProcess(env, 90_000);
      hubspot = await sandboxUrl(service);
      for (const id of [first, second]) {
        const after = (await view(service, id)).body;
        expect(after.state).toEqual(before[id]!.state);
        // (its URL names the sandbox's port, which a restart may change)
        expect(after.company).toMatchObject({ id: before[id]!.company!.id, reason: before[id]!.company!.reason });
        expect(after.audit.map((a) => a.id)).toEqual(before[id]!.audit.map((a) => a.id));
        expect(await primaryCompany(hubspot, id)).toBe(before[id]!.company!.id);
      }
      // A contact made after the restart gets an id of its own, is enriched, and gets its company.
      const third = await createContact(hubspot, cy!.workEmail!);
      const taken = [first, second, before[first]!.company!.id, before[second]!.company!.id];
      expect(taken).not.toContain(third);
      const thirdView = await linkedView(service, third);
      expect(thirdView.runs).toHaveLength(1);
      expect(taken).not.toContain(thirdView.company!.id);
      expect(await primaryCompany(hubspot, third)).toBe(thirdView.company!.id);
      await interrupt(service);

      // The same data directory pointed at a second portal (and a second org): said at start-up, and none of
      // the first one's state shows.
      service = await startServiceProcess(
        { ...env, SANDBOX_HUBSPOT_PORTAL_ID: '7654321', SANDBOX_SALESFORCE_ORG_ID: '00D5e0000012345' },
        90_000,
      );
      hubspot = await sandboxUrl(service);
      const warnings = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.level === 40 && line.previousAccount !== undefined);
      const org = toId18('00D5e0000012345');
      expect(warnings).toMatchObject([
        { connection: 'hubspot', account: '7654321', previousAccount: '62515' },
        { connection: 'salesforce', account: org, previousAccount: SANDBOX_ORG_ID },
      ]);
      expect(String(warnings[0]!.msg)).toContain('changed from 62515 to 7654321');
      expect((await view(service, first)).status).toBe(404);

      // The new portal hands out the first portal's record ids again; its contact is enriched and linked on its own.
      const again = await createContact(hubspot, dee!.workEmail!);
      expect(again).toBe(first);
      const fresh = await linkedView(service, again);
      expect(fresh.runs).toHaveLength(1);
      expect(fresh.audit.every((row) => row.jobId === fresh.runs[0]!.jobId)).toBe(true);
      expect(fresh.company!.reason ?? '').not.toContain(ada!.employer.domain);
      expect(await primaryCompany(hubspot, again)).toBe(fresh.company!.id);
      await interrupt(service);
    },
    420_000,
  );
});
