/**
 * The endpoints the CRMs call from inside themselves, over real HTTP: the HubSpot workflow action
 * (executed by the HubSpot sandbox as HubSpot executes it, signed), the record card's fetches, and
 * the Salesforce flow action. Webhooks are off here, so every run is one these endpoints asked for.
 */
import { describe, expect, it } from 'vitest';
import { signV1, signV2, signV3 } from '../../connectors/hubspot/signature.js';
import { CardData } from '../../connectors/hubspot/entry-points/card-model.js';
import { serverUnavailable } from '../support/db.js';
import { dropSchema, partnerServed, schemaQuery } from './probes.js';
import { signAction } from '../../connectors/salesforce/entry-points/action-signature.js';
import {
  eventually,
  partnerPeople,
  SALESFORCE_ACTION_SECRET,
  SALESFORCE_SECRET,
  HUBSPOT_SECRET,
  startSandboxes,
  startService,
} from './stack.js';
import { useStack, type Stack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface Execution {
  callbackId: string;
  sends: number;
  state: 'completed' | 'blocked' | 'failed';
  httpStatus: number | null;
  outputFields: Record<string, unknown> | null;
  completedBy: 'response' | 'callback' | null;
}

interface RecordView {
  runs: { jobId: string | null; actor: string | null; trigger?: string | null; rows: { outcome: string | null }[] }[];
}

/** Calls a `/__sandbox/...` control of the HubSpot sandbox. */
async function sandboxCall<T>(
  stack: Stack,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.sandboxes.hubspot.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** The sandbox's execution of a workflow step, once it is completed. */
function completedExecution(stack: Stack, callbackId: string, timeoutMs: number, what: string): Promise<Execution> {
  return eventually(
    async () => {
      const e = await sandboxCall<Execution>(stack, 'GET', `/__sandbox/workflows/executions/${callbackId}`);
      return e.body.state === 'completed' ? e.body : undefined;
    },
    timeoutMs,
    what,
  );
}

/** Points the sandboxes at the service and stops webhooks, so only the entry points start runs. */
function quiet(stack: Stack): void {
  stack.sandboxes.hubspot.setWebhookUrl(undefined);
  stack.sandboxes.salesforce.setOutboundUrl(undefined);
  stack.sandboxes.hubspot.setAppUrl(stack.running.url);
}

/** A contact the partner knows, created in the HubSpot sandbox without any webhook. */
function knownContact(stack: Stack, offset: number): string {
  const person = partnerPeople(stack.sandboxes, 1, offset)[0]!;
  return stack.sandboxes.hubspot.createContact({ email: person.workEmail!, firstname: 'Entry' }).id;
}

/** An execution request signed as HubSpot signs it, sent straight to the service. */
async function signedAction(stack: Stack, body: unknown, secret = HUBSPOT_SECRET) {
  const url = `${stack.running.url}/hubspot/actions/enrich`;
  const text = JSON.stringify(body);
  const timestamp = String(Date.now());
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hubspot-signature-v3': signV3(secret, 'POST', url, text, timestamp),
      'x-hubspot-request-timestamp': timestamp,
    },
    body: text,
  });
  return {
    status: res.status,
    body: (await res.json()) as { outputFields?: Record<string, unknown>; error?: { code: string; message: string } },
  };
}

/** The jobs the service queued for a record. */
const jobsOf = async (stack: Stack, id: string) =>
  (
    await schemaQuery<{ n: number }>(
      stack.running,
      `SELECT count(*)::int AS n FROM $schema.job WHERE data->>'recordId' = $1`,
      [id],
    )
  )[0]!.n;

const auditRows = async (stack: Stack, id: string) =>
  (
    await schemaQuery<{ n: number }>(
      stack.running,
      `SELECT count(*)::int AS n FROM $schema.audit_log WHERE record_id = $1`,
      [id],
    )
  )[0]!.n;

describe.skipIf(skip)('CRM entry points, answered within the wait', () => {
  const stack = useStack({
    service: {
      env: {
        HUBSPOT_ACTION_WAIT_MS: '20000',
        SALESFORCE_ACTION_WAIT_MS: '20000',
        HUBSPOT_CREATE_COMPANIES: 'false',
        SALESFORCE_CREATE_ACCOUNTS: 'false',
      },
    },
  });

  it('refuses workflow action requests that are unsigned or signed with another secret, and does nothing', async () => {
    quiet(stack);
    const id = knownContact(stack, 0);
    const body = {
      callbackId: 'cb-unsigned',
      origin: { portalId: stack.sandboxes.hubspot.portalId },
      object: { objectId: Number(id), objectType: 'CONTACT' },
    };
    const unsigned = await fetch(`${stack.running.url}/hubspot/actions/enrich`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe('invalid_signature');
    const forged = await signedAction(stack, body, 'not-the-client-secret');
    expect(forged.status).toBe(401);
    expect(await auditRows(stack, id)).toBe(0);
  });

  it('refuses a signed request from another portal, and one that names no object', async () => {
    quiet(stack);
    const id = knownContact(stack, 1);
    const foreign = await signedAction(stack, {
      callbackId: 'cb-foreign',
      origin: { portalId: 999 },
      object: { objectId: Number(id), objectType: 'CONTACT' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error?.code).toBe('wrong_portal');
    const missing = await signedAction(stack, {
      callbackId: 'cb-missing',
      origin: { portalId: stack.sandboxes.hubspot.portalId },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error?.message).toMatch(/^object/);
    expect(await auditRows(stack, id)).toBe(0);
  });

  it('runs a step HubSpot signs with v2 alone, and once however often HubSpot sends it', async () => {
    quiet(stack);
    const id = knownContact(stack, 5);
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: id,
      signatures: ['v2'],
    });
    expect(enrolled.body.httpStatus).toBe(200);
    expect(enrolled.body.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    expect(await jobsOf(stack, id)).toBe(1);
    const served = partnerServed(stack.sandboxes);

    // HubSpot sends the same step again (say our answer was lost), twice: the same answer, no new run.
    for (const sends of [2, 3]) {
      const again = await sandboxCall<Execution>(
        stack,
        'POST',
        `/__sandbox/workflows/executions/${enrolled.body.callbackId}/resend`,
      );
      expect(again.body).toMatchObject({ sends, httpStatus: 200, outputFields: enrolled.body.outputFields });
    }
    expect(await jobsOf(stack, id)).toBe(1);
    expect(partnerServed(stack.sandboxes)).toBe(served);
    const view = await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${id}`);
    expect(view.body.runs.filter((r) => r.actor === 'hubspot:workflow')).toHaveLength(1);
  });

  it('refuses a v1 signature and a stale v3 one, saying why, and does nothing', async () => {
    quiet(stack);
    const id = knownContact(stack, 6);
    const url = `${stack.running.url}/hubspot/actions/enrich`;
    const text = JSON.stringify({
      callbackId: 'cb-old-signatures',
      origin: { portalId: stack.sandboxes.hubspot.portalId },
      object: { objectId: Number(id), objectType: 'CONTACT' },
    });
    const send = async (headers: Record<string, string>) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
    };
    const v1 = await send({ 'x-hubspot-signature': signV1(HUBSPOT_SECRET, text), 'x-hubspot-signature-version': 'v1' });
    expect(v1.status).toBe(401);
    expect(v1.body.error.code).toBe('invalid_signature');
    expect(v1.body.error.message).toContain('v1 signatures are not accepted here (v3 or v2 are)');
    const stale = String(Date.now() - 6 * 60_000);
    const v3 = await send({
      'x-hubspot-signature-v3': signV3(HUBSPOT_SECRET, 'POST', url, text, stale),
      'x-hubspot-request-timestamp': stale,
    });
    expect(v3.status).toBe(401);
    expect(v3.body.error.message).toContain('older than 5 minutes');
    expect(await auditRows(stack, id)).toBe(0);
    expect(await jobsOf(stack, id)).toBe(0);
  });

  it('enriches an enrolled contact and answers the output fields in the response', async () => {
    quiet(stack);
    const id = knownContact(stack, 2);
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: id,
    });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.state).toBe('completed');
    expect(enrolled.body.completedBy).toBe('response');
    expect(enrolled.body.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    const written = enrolled.body.outputFields!.fields_written as number;
    expect(written).toBeGreaterThan(0);
    const contact = stack.sandboxes.hubspot.getContact(id)!;
    expect(Object.keys(contact).filter((p) => p.startsWith('crm_enrich_')).length).toBeGreaterThan(0);
    // The admin page's record view says what started the run.
    const view = await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${id}`);
    expect(view.body.runs.find((r) => r.jobId)?.trigger).toBe('workflow');
    expect(view.body.runs.some((r) => r.actor === 'hubspot:workflow')).toBe(true);
  });

  it('answers no_match for a contact the partner does not know', async () => {
    quiet(stack);
    const id = stack.sandboxes.hubspot.createContact({ email: 'nobody.here@unlisted-entry.example' }).id;
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'CONTACT',
      objectId: id,
    });
    expect(enrolled.body.outputFields).toEqual({ outcome: 'no_match', fields_written: 0, matched: false });
  });

  it('answers skipped for a record HubSpot does not have, and for an object with no mapping', async () => {
    quiet(stack);
    const gone = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: '88888888',
    });
    expect(gone.body.outputFields).toEqual({ outcome: 'skipped', fields_written: 0, matched: false });
    const deal = await signedAction(stack, {
      callbackId: 'cb-deal',
      origin: { portalId: stack.sandboxes.hubspot.portalId },
      object: { objectId: 5, objectType: 'DEAL' },
    });
    expect(deal.status).toBe(200);
    expect(deal.body.outputFields).toEqual({ outcome: 'skipped', fields_written: 0, matched: false });
  });

  it('serves the record card to signed fetches of the connected portal only', async () => {
    quiet(stack);
    const id = knownContact(stack, 3);
    await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', { objectType: 'contact', objectId: id });

    const card = await sandboxCall<{ status: number; body: unknown }>(stack, 'POST', '/__sandbox/cards/fetch', {
      path: `/hubspot/card/contact/${id}`,
    });
    expect(card.body.status).toBe(200);
    const data = CardData.parse(card.body.body);
    expect(data.state).toBe('enriched');
    expect(data.lastRunTrigger).toBe('workflow');
    expect(data.fields.length).toBeGreaterThan(0);
    expect(data.fields.every((f) => f.reason)).toBe(true);
    // Each field with the label HubSpot shows for it: a standard property's, and a provisioned one's from the mapping.
    const labels = Object.fromEntries(data.fields.map((f) => [f.property, f.label]));
    expect(Object.values(labels).every((label) => typeof label === 'string' && label.length > 0)).toBe(true);
    expect(labels.jobtitle).toBe('Job Title');
    if ('crm_enrich_department' in labels) expect(labels.crm_enrich_department).toBe('Department');

    const cardUrl = `${stack.running.url}/hubspot/card/contact/${id}?portalId=${stack.sandboxes.hubspot.portalId}`;
    const unsigned = await fetch(cardUrl);
    expect(unsigned.status).toBe(401);
    // hubspot.fetch signs v3; the card takes nothing weaker, v2 included.
    const v2 = await fetch(cardUrl, {
      headers: {
        'x-hubspot-signature': signV2(HUBSPOT_SECRET, 'GET', cardUrl, ''),
        'x-hubspot-signature-version': 'v2',
      },
    });
    expect(v2.status).toBe(401);
    expect(((await v2.json()) as { error: { message: string } }).error.message).toContain(
      'v2 signatures are not accepted here',
    );
    const foreign = await sandboxCall<{ status: number; body: { error: { code: string } } }>(
      stack,
      'POST',
      '/__sandbox/cards/fetch',
      { path: `/hubspot/card/contact/${id}`, portalId: 4242 },
    );
    expect(foreign.body.status).toBe(403);
    expect(foreign.body.body.error.code).toBe('wrong_portal');
    const never = await sandboxCall<{ status: number; body: unknown }>(stack, 'POST', '/__sandbox/cards/fetch', {
      path: '/hubspot/card/contacts/987654321',
    });
    expect(CardData.parse(never.body.body).state).toBe('never');
  });

  it('queues the record from the card\'s "Enrich now" and records the card as its trigger', async () => {
    quiet(stack);
    const id = knownContact(stack, 4);
    const unsigned = await fetch(
      `${stack.running.url}/hubspot/card/contact/${id}/enrich?portalId=${stack.sandboxes.hubspot.portalId}`,
      { method: 'POST' },
    );
    expect(unsigned.status).toBe(401);
    expect(await auditRows(stack, id)).toBe(0);
    const posted = await sandboxCall<{ status: number; body: { state: string; runId: string | null } }>(
      stack,
      'POST',
      '/__sandbox/cards/fetch',
      { path: `/hubspot/card/contact/${id}/enrich`, method: 'POST' },
    );
    expect(posted.body.status).toBe(202);
    expect(posted.body.body).toEqual({ state: 'pending', runId: expect.any(String) });
    const trigger = await eventually(
      async () => {
        const view = await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${id}`);
        return view.status === 200 ? (view.body.runs.find((r) => r.jobId)?.trigger ?? undefined) : undefined;
      },
      15_000,
      'the card run to settle',
    );
    expect(trigger).toBe('card');
  });

  it('enriches records for a Salesforce flow signed with its own secret and org, and refuses the rest', async () => {
    quiet(stack);
    const sf = stack.sandboxes.salesforce;
    const person = partnerPeople(stack.sandboxes, 1, 10)[0]!;
    const contactId = sf.createRecord('Contact', { LastName: 'Flow', Email: person.workEmail! }, { notify: false });
    const signed = (text: string, secret: string | null): Record<string, string> => {
      if (secret === null) return {};
      const timestamp = String(Math.floor(Date.now() / 1000));
      return {
        'x-crm-enrich-timestamp': timestamp,
        'x-crm-enrich-signature': signAction(secret, timestamp, text),
      };
    };
    const send = (text: string, headers: Record<string, string>) =>
      fetch(`${stack.running.url}/salesforce/actions/enrich`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });
    const call = (body: unknown, secret: string | null = SALESFORCE_ACTION_SECRET) => {
      const text = JSON.stringify(body);
      return send(text, signed(text, secret));
    };
    const body = { organizationId: sf.orgId, records: [{ type: 'Contact', id: contactId }] };

    expect((await call(body, null)).status).toBe(401);
    expect((await call(body, 'wrong-secret')).status).toBe(401);
    // The outbound messages' URL secret no longer opens the flow action, in its old header or as a key.
    expect((await send(JSON.stringify(body), { 'x-crm-enrich-secret': SALESFORCE_SECRET })).status).toBe(401);
    expect((await call(body, SALESFORCE_SECRET)).status).toBe(401);
    const foreign = await call({ ...body, organizationId: '00D000000000001AAA' });
    expect(foreign.status).toBe(403);
    const tooMany = await call({
      organizationId: sf.orgId,
      records: Array.from({ length: 201 }, () => ({ type: 'Contact', id: contactId })),
    });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { details: { field: string } } }).error.details.field).toBe('records');
    expect(await auditRows(stack, contactId)).toBe(0);

    const text = JSON.stringify(body);
    const headers = signed(text, SALESFORCE_ACTION_SECRET);
    const ok = await send(text, headers);
    expect(ok.status).toBe(200);
    // The same request sent again within its five minutes: refused, nothing run twice.
    const replayed = await send(text, headers);
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ error: { code: 'invalid_signature' } });
    const { results } = (await ok.json()) as { results: { id: string; outcome: string; fieldsWritten: number }[] };
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: contactId, outcome: 'enriched' });
    expect(results[0]!.fieldsWritten).toBeGreaterThan(0);
  });
});

describe.skipIf(skip)('a workflow step that does not settle within the wait', () => {
  const stack = useStack({ service: { env: { HUBSPOT_ACTION_WAIT_MS: '0', HUBSPOT_CREATE_COMPANIES: 'false' } } });

  it('answers BLOCK and completes the step later through the callback endpoint', async () => {
    quiet(stack);
    const id = knownContact(stack, 20);
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: id,
    });
    expect(enrolled.body.state).toBe('blocked');
    expect(enrolled.body.outputFields).toEqual({ hs_execution_state: 'BLOCK' });
    const done = await completedExecution(
      stack,
      enrolled.body.callbackId,
      20_000,
      'the blocked step to be completed by its callback',
    );
    expect(done.completedBy).toBe('callback');
    expect(done.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    expect(done.outputFields!.fields_written).toBeGreaterThan(0);
    // The service marks the step done once HubSpot has taken the callback.
    const row = await eventually(
      async () => {
        const r = await stack.running.service.parts.store.workflowCallbacks.get(enrolled.body.callbackId);
        return r?.completedAt ? r : undefined;
      },
      5_000,
      'the callback row to be marked done',
    );
    expect(row.lastError).toBeNull();
  });

  it('answers BLOCK again to a blocked step sent again, with no second run, and completes it once', async () => {
    quiet(stack);
    const hubspot = stack.sandboxes.hubspot;
    const id = knownContact(stack, 22);
    const before = hubspot.callbackAttempts();
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: id,
      signatures: ['v2'],
    });
    expect(enrolled.body.state).toBe('blocked');
    const again = await sandboxCall<Execution>(
      stack,
      'POST',
      `/__sandbox/workflows/executions/${enrolled.body.callbackId}/resend`,
    );
    expect(again.body).toMatchObject({ sends: 2, httpStatus: 200, outputFields: { hs_execution_state: 'BLOCK' } });
    const done = await completedExecution(
      stack,
      enrolled.body.callbackId,
      20_000,
      'the blocked step to be completed by its callback',
    );
    expect(done.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    expect(await jobsOf(stack, id)).toBe(1);
    expect(hubspot.callbackAttempts() - before).toBe(1);
  });

  it('sends a callback HubSpot refused again later, and completes the step', async () => {
    quiet(stack);
    const hubspot = stack.sandboxes.hubspot;
    const id = knownContact(stack, 21);
    // The connector tries a 5xx three times in a row (request-runner.ts); all three are refused.
    hubspot.refuseCallbacks(3);
    const before = hubspot.callbackAttempts();
    const enrolled = await sandboxCall<Execution>(stack, 'POST', '/__sandbox/workflows/enroll', {
      objectType: 'contact',
      objectId: id,
    });
    expect(enrolled.body.state).toBe('blocked');
    // The refusal is kept with the step, which stays to be sent again.
    const refused = await eventually(
      async () => {
        const r = await stack.running.service.parts.store.workflowCallbacks.get(enrolled.body.callbackId);
        return r && r.attempts > 0 ? r : undefined;
      },
      20_000,
      'the first callback to be refused',
    );
    expect(refused.completedAt).toBeNull();
    expect(refused.lastError).toBeTruthy();
    const done = await completedExecution(
      stack,
      enrolled.body.callbackId,
      30_000,
      'the step to be completed by the callback sent again',
    );
    expect(done.completedBy).toBe('callback');
    expect(done.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    expect(hubspot.callbackAttempts() - before).toBe(4);
  });
});

describe.skipIf(skip)('a blocked workflow step across a restart', () => {
  it('is completed by the next instance when the one that answered BLOCK stops first', async () => {
    const sandboxes = await startSandboxes();
    const env = { HUBSPOT_ACTION_WAIT_MS: '0', HUBSPOT_CREATE_COMPANIES: 'false' };
    let first = await startService(sandboxes, { env });
    const schema = first.schema;
    try {
      sandboxes.hubspot.setWebhookUrl(undefined);
      sandboxes.hubspot.setAppUrl(first.url);
      const person = partnerPeople(sandboxes, 1, 30)[0]!;
      const id = sandboxes.hubspot.createContact({ email: person.workEmail! }).id;
      const enroll = await fetch(`${sandboxes.hubspot.url}/__sandbox/workflows/enroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ objectType: 'contact', objectId: id }),
      });
      const step = (await enroll.json()) as Execution;
      expect(step.state).toBe('blocked');
      // Stopped at once: its callback sender stops before its lanes finish the run, so it sends nothing.
      await first.stop();
      expect(sandboxes.hubspot.callbackAttempts()).toBe(0);

      first = await startService(sandboxes, { env, schema });
      const done = await eventually(
        async () => {
          const e = sandboxes.hubspot.actionExecutions().find((x) => x.callbackId === step.callbackId);
          return e?.state === 'completed' ? e : undefined;
        },
        30_000,
        'the next instance to complete the step',
      );
      expect(done.completedBy).toBe('callback');
      expect(done.outputFields).toMatchObject({ outcome: 'enriched', matched: true });
    } finally {
      await first.stop().catch(() => undefined);
      await sandboxes.close();
      await dropSchema(schema);
    }
  });
});
