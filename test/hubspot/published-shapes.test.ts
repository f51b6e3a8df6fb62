/**
 * The sandbox's answers to what the service sends, held against HubSpot's published API descriptions:
 * the connector (the official client, unmodified) runs every kind of call it makes, on each API version,
 * through a recording proxy in front of the sandbox, and a user reads associations back both ways; every
 * answer recorded must be a status the description lists for its route and a body of that status's
 * shape (published-shapes.ts), errors included, and every route the connector uses must have been seen.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HUBSPOT_API_PATHS,
  HUBSPOT_API_VERSIONS,
  type HubspotApiVersion,
} from '../../connectors/hubspot/api-version.js';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import type { CrmConnector } from '../../src/core/connector.js';
import { ErrorAnswer, publishedRoutes } from './published-shapes.js';

interface Exchange {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** Forwards every request to the sandbox and keeps each answer as it went over the wire. */
async function recordingProxy(target: string, exchanges: Exchange[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      void fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined }).then(
        async (answer) => {
          const text = await answer.text();
          exchanges.push({
            method: req.method ?? 'GET',
            path: new URL(req.url ?? '/', target).pathname,
            status: answer.status,
            body: text ? (JSON.parse(text) as unknown) : undefined,
          });
          const kept = ['content-type', 'retry-after'];
          res.writeHead(
            answer.status,
            Object.fromEntries([...answer.headers].filter(([k]) => kept.includes(k) || k.startsWith('x-hubspot'))),
          );
          res.end(text);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A stand-in for the app's workflow action: every execution is answered BLOCK, to be completed by callback. */
async function blockingApp(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ outputFields: { hs_execution_state: 'BLOCK' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The problems of one answer against the descriptions of `version`, or none. */
function problemsOf(version: HubspotApiVersion, e: Exchange): string[] {
  const route = publishedRoutes(version, HUBSPOT_API_PATHS[version]).find(
    (r) => r.method === e.method && new RegExp(`^${r.path}$`).test(e.path),
  );
  const where = `${e.method} ${e.path} ${e.status}`;
  if (!route) return [`${where}: no published route of ${version}`];
  const shape = e.status >= 400 ? ErrorAnswer : route.answers[e.status];
  if (!shape) return [`${where}: ${route.name} lists ${Object.keys(route.answers).join(', ')} and errors`];
  const parsed = shape.safeParse(e.body);
  return parsed.success
    ? []
    : parsed.error.issues.slice(0, 3).map((i) => `${where}: ${i.path.join('.') || '(body)'}: ${i.message}`);
}

describe.each(HUBSPOT_API_VERSIONS)('the sandbox answers as HubSpot describes API version %s', (version) => {
  const P = HUBSPOT_API_PATHS[version];
  const exchanges: Exchange[] = [];
  let sandbox: HubspotSandbox;
  let proxy: { url: string; server: Server };
  let app: { url: string; server: Server };
  let hubspot: CrmConnector;
  let user: Client;

  beforeAll(async () => {
    sandbox = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
    proxy = await recordingProxy(sandbox.url, exchanges);
    app = await blockingApp();
    sandbox.setAppUrl(app.url);
    hubspot = createHubspotConnector({
      connection: `shapes-${version}`,
      accessToken: 'sandbox-token',
      basePath: proxy.url,
      rateLimit: { max: 1000, windowMs: 10_000 },
      apiVersion: version,
    });
    user = new Client({ accessToken: 'sandbox-token', basePath: proxy.url, numberOfApiCallRetries: 0 });
  });
  afterAll(async () => {
    await hubspot.close();
    await new Promise((resolve) => proxy.server.close(resolve));
    await new Promise((resolve) => app.server.close(resolve));
    await sandbox.close();
  });

  it('answers every kind of call the connector makes in the described statuses and shapes, errors too', async () => {
    await hubspot.prepare!();
    await hubspot.ensureProperties('contact', [...hubspot.jobChangeProperties!.contact!]);
    await hubspot.readSchema('company');
    const acme = sandbox.createCompany({ name: 'Acme', domain: 'acme.example' }).id;
    const ann = sandbox.createContact({ email: 'ann@acme.example', firstname: 'Ann', lastname: 'Lee' }).id;
    const bo = sandbox.createContact({ email: 'bo@acme.example', firstname: 'Bo' }).id;
    // Batches with a missing id and a bad value: the partial answers.
    await hubspot.readRecords('contact', [ann, bo, '99999999'], ['email', 'jobtitle']);
    await hubspot.writeRecords('contact', [
      { id: ann, properties: { jobtitle: 'CTO' } },
      { id: '99999999', properties: { jobtitle: 'CFO' } },
    ]);
    await hubspot.writeRecords('company', [{ id: acme, properties: { industry: 'NOT_AN_OPTION' } }]);
    // A property HubSpot does not know refuses the whole batch with a 400.
    await hubspot.writeRecords('contact', [{ id: bo, properties: { no_such_property: 'x' } }]);
    await hubspot.listRecords('contact', { properties: ['email'], limit: 1 });
    await hubspot.listRecords('contact', { properties: ['email'], changedSince: new Date(0), limit: 1 });
    await hubspot.searchRecords!('contact', 'Ann Lee', ['email'], 10);
    const [made] = await hubspot.createCompanies!([{ domain: 'globex.example', name: 'Globex' }]);
    await hubspot.findCompanies!({ domains: ['acme.example'], partnerIds: [], names: ['globex'] });
    await hubspot.linkToCompanies!('contact', [
      { recordId: ann, companyId: acme },
      { recordId: bo, companyId: '99999999' },
    ]);
    await hubspot.provisionJobChangeSchema!();
    await hubspot.createRecords!('contact', [{ email: 'cy@globex.example' }, { email: 'ann@acme.example' }]);
    const done = await hubspot.applyJobChange!(
      'contact',
      {
        recordId: ann,
        from: { name: 'Acme', domain: 'acme.example' },
        to: { name: 'Globex', domain: 'globex.example' },
        oldTitle: 'CTO',
        newTitle: 'CEO',
        detectedAt: new Date(),
        previousCompanyId: acme,
        newCompanyId: made!.id,
        newContact: { email: 'ann.lee@globex.example', firstName: 'Ann', lastName: 'Lee' },
      },
      { properties: true, task: true, employer: true, newContact: true },
    );
    expect(done).toEqual({ properties: 'done', task: 'done', employer: 'done', newContact: 'done' });
    await hubspot.listMembers!('contact', sandbox.createList([ann, bo]));
    await expect(hubspot.listMembers!('contact', '404')).rejects.toMatchObject({ code: 'not_found' });
    const named = sandbox.createList([ann], { name: 'Trade fair 2026' });
    expect(await hubspot.findList!('contact', 'trade FAIR 2026')).toBe(named);
    expect(await hubspot.findList!('contact', 'No such list')).toBeUndefined();
    const enrolled = (await (
      await fetch(`${sandbox.url}/__sandbox/workflows/enroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ objectType: 'contact', objectId: ann }),
      })
    ).json()) as { callbackId: string; state: string };
    expect(enrolled.state).toBe('blocked');
    await hubspot.completeWorkflowAction!(enrolled.callbackId, { outcome: 'written', fields_written: 2 });
    await expect(hubspot.completeWorkflowAction!('ap-unknown', { outcome: 'written' })).rejects.toMatchObject({
      code: 'not_found',
    });
    const refused = createHubspotConnector({
      connection: `shapes-refused-${version}`,
      accessToken: 'not-a-token',
      basePath: proxy.url,
      apiVersion: version,
    });
    await expect(refused.readSchema('contact')).rejects.toMatchObject({ code: 'auth' });
    await refused.close();

    const problems = exchanges.flatMap((e) => problemsOf(version, e));
    expect(problems).toEqual([]);
    // Every route the connector calls was seen, and the partial and error answers among them.
    const seen = new Set(
      exchanges.map(
        (e) =>
          publishedRoutes(version, P).find((r) => r.method === e.method && new RegExp(`^${r.path}$`).test(e.path))
            ?.name,
      ),
    );
    expect([...seen].sort()).toEqual(
      [
        'account details',
        'association batch create',
        'association label create',
        'association labels',
        'batch create',
        'batch read',
        'batch update',
        'create',
        'daily usage',
        'list by name',
        'list memberships',
        'list read',
        'list page',
        'properties',
        'property create',
        'property groups create',
        'read',
        'search',
        'update',
        'workflow callback',
      ].sort(),
    );
    const statuses = new Set(exchanges.map((e) => e.status));
    for (const status of [400, 401, 404]) expect(statuses).toContain(status);
    const partials = exchanges.filter(
      (e) => (e.body as { numErrors?: number } | undefined)?.numErrors !== undefined && e.status < 300,
    );
    expect(partials.length).toBeGreaterThanOrEqual(3);
    expect(partials.every((e) => e.status === 207)).toBe(version === 'v3');
  });

  it('keeps a task readable through its contact and the contact through the task, in described shapes', async () => {
    exchanges.length = 0;
    const contact = sandbox.createContact({ email: 'dee@acme.example' }).id;
    const company = sandbox.createCompany({ name: 'Dee Co', domain: 'dee.example' }).id;
    await hubspot.applyJobChange!(
      'contact',
      {
        recordId: contact,
        from: { name: 'Acme', domain: 'acme.example' },
        to: { name: 'Dee Co', domain: 'dee.example' },
        oldTitle: null,
        newTitle: 'Head of Sales',
        detectedAt: new Date(),
      },
      { properties: false, task: true },
    );
    const [task] = sandbox.tasks().filter((t) => t.contacts.includes(contact));
    const get = async (path: string): Promise<unknown> => (await user.apiRequest({ path })).json();
    const post = async (path: string, body: unknown): Promise<unknown> =>
      (await user.apiRequest({ method: 'POST', path, body })).json();
    const ids = (answer: unknown) =>
      (answer as { results: { toObjectId: number }[] }).results.map((r) => String(r.toObjectId));

    expect(ids(await get(`${P.objectAssociations}/contacts/${contact}/associations/tasks`))).toEqual([task!.id]);
    expect(ids(await get(`${P.objectAssociations}/tasks/${task!.id}/associations/contacts`))).toEqual([contact]);
    // A note made on the company, and the task on the company too, read from each side.
    const note = (await post(`${P.objects}/notes`, {
      properties: { hs_timestamp: new Date().toISOString(), hs_note_body: 'Met at the fair' },
      associations: [
        { to: { id: company }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 190 }] },
      ],
    })) as { id: string };
    await user.apiRequest({
      method: 'PUT',
      path: `${P.objectAssociations}/tasks/${task!.id}/associations/default/companies/${company}`,
    });
    expect(ids(await get(`${P.objectAssociations}/companies/${company}/associations/notes`))).toEqual([note.id]);
    expect(ids(await get(`${P.objectAssociations}/notes/${note.id}/associations/companies`))).toEqual([company]);
    const read = (await post(`${P.associations}/companies/tasks/batch/read`, { inputs: [{ id: company }] })) as {
      results: { to: { toObjectId: number; associationTypes: { typeId: number }[] }[] }[];
    };
    expect(read.results[0]!.to).toEqual([
      { toObjectId: Number(task!.id), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 191, label: null }] },
    ]);
    expect(exchanges.flatMap((e) => problemsOf(version, e))).toEqual([]);
  });
});
