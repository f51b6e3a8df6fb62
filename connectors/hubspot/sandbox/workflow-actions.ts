/**
 * The app's custom workflow action and record card as HubSpot runs them, for the service running
 * offline: "enrolling" a record sends the action's execution request to the action URL, signed with the
 * app's secret as HubSpot signs it: v2 (X-HubSpot-Signature, which the custom action guide names) and v3
 * beside it (`signatures` in the enroll body sends fewer, as a portal that sends v2 alone would). A
 * step can be sent again with the same callbackId, as HubSpot does when an answer did not reach it
 * (`POST /__sandbox/workflows/executions/{callbackId}/resend`). An answer of `hs_execution_state: BLOCK`
 * leaves the step waiting until the app
 * calls POST /automation/v4/actions/callbacks/{callbackId}/complete (or its date-based path, where
 * HubSpot's description also requires `typedOutputs`). A card fetch is made as
 * `hubspot.fetch` makes it: signed v3, with userId, userEmail, portalId and appId added to the query.
 */
import express, { Router, type Request, type Response } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS, isDateBased } from '../api-version.js';
import { signV2, signV3 } from '../signature.js';
import { sendError } from './wire-errors.js';

export interface WorkflowActionOptions {
  portalId: number;
  appId: number;
  clientSecret: string;
  /** The app's public URL (the service): the action URL and the card's fetch URLs start with it. */
  appUrl?: string;
  /** How long HubSpot waits for the action's answer. */
  timeoutMs?: number;
}

/** One step of one enrolled record, as the sandbox saw it. */
export interface ActionExecution {
  callbackId: string;
  /** Times the execution request was sent (a resend adds one). */
  sends: number;
  objectType: 'CONTACT' | 'COMPANY';
  objectId: string;
  /** `blocked`: answered BLOCK and waits for its callback; `failed`: the app did not answer with a 2xx. */
  state: 'completed' | 'blocked' | 'failed';
  httpStatus: number | null;
  /** The answer's output fields, then the callback's once it completes the step. */
  outputFields: Record<string, unknown> | null;
  completedBy: 'response' | 'callback' | null;
  error?: string;
}

export interface WorkflowActions {
  /** Mounted before the token check: the `/__sandbox/...` controls. */
  controls: Router;
  /** Mounted after it: HubSpot's callback API. */
  api: Router;
  setAppUrl(url: string | undefined): void;
  executions(): ActionExecution[];
  /** The next `n` callback completions are refused with a 502, as during a HubSpot outage. */
  refuseCallbacks(n: number): void;
  /** Callback completions received, refused ones included. */
  callbackAttempts(): number;
}

/** The signatures HubSpot puts on a request; workflow action requests carry both. */
const SIGNATURES = ['v2', 'v3'] as const;
type Signature = (typeof SIGNATURES)[number];
const ACTION_SIGNATURES: readonly Signature[] = SIGNATURES;

/** An execution request as sent, to send again. */
interface SentStep {
  url: string;
  request: { callbackId: string } & Record<string, unknown>;
  signatures: readonly Signature[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const OBJECT_TYPES: Record<string, 'CONTACT' | 'COMPANY' | undefined> = {
  contact: 'CONTACT',
  contacts: 'CONTACT',
  '0-1': 'CONTACT',
  company: 'COMPANY',
  companies: 'COMPANY',
  '0-2': 'COMPANY',
};

export function workflowActions(options: WorkflowActionOptions): WorkflowActions {
  let appUrl = options.appUrl?.replace(/\/+$/, '');
  let actionUrl: string | undefined;
  let secret = options.clientSecret;
  const executions = new Map<string, ActionExecution>();
  const sentSteps = new Map<string, SentStep>();
  let next = 1;
  let refuse = 0;
  let attempts = 0;

  const actionTarget = () => actionUrl ?? (appUrl ? `${appUrl}/hubspot/actions/enrich` : undefined);

  /**
   * A request as HubSpot signs it, with the app's secret: v3 over method, URL, body and timestamp, and
   * v2 (X-HubSpot-Signature) over secret, method, URL and body where asked (workflow actions).
   */
  async function signedFetch(
    method: string,
    url: string,
    body: string | undefined,
    signatures: readonly Signature[] = ['v3'],
  ): Promise<{ status: number; body: unknown }> {
    const timestamp = String(Date.now());
    const headers: Record<string, string> = {
      ...(signatures.includes('v3')
        ? {
            'X-HubSpot-Signature-v3': signV3(secret, method, url, body ?? '', timestamp),
            'X-HubSpot-Request-Timestamp': timestamp,
          }
        : {}),
      ...(signatures.includes('v2')
        ? { 'X-HubSpot-Signature': signV2(secret, method, url, body ?? ''), 'X-HubSpot-Signature-Version': 'v2' }
        : { 'X-HubSpot-Signature-Version': 'v3' }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    };
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 20_000) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: parsed };
  }

  /** Sends a step's execution request and records the answer as HubSpot would. */
  async function execute(sent: SentStep): Promise<ActionExecution> {
    const execution = executions.get(sent.request.callbackId)!;
    execution.sends++;
    try {
      const answer = await signedFetch('POST', sent.url, JSON.stringify(sent.request), sent.signatures);
      execution.httpStatus = answer.status;
      const outputs = (answer.body as { outputFields?: Record<string, unknown> } | null)?.outputFields ?? null;
      if (answer.status >= 200 && answer.status < 300) {
        delete execution.error;
        execution.outputFields = outputs;
        if (outputs?.hs_execution_state === 'BLOCK') execution.state = 'blocked';
        else {
          execution.state = 'completed';
          execution.completedBy = 'response';
        }
      } else execution.error = JSON.stringify(answer.body).slice(0, 500);
    } catch (error) {
      execution.error = (error as Error).message;
    }
    return structuredClone(execution);
  }

  const controls = Router();
  controls.use('/__sandbox/workflows', express.json());
  controls.use('/__sandbox/cards', express.json());

  // The action's definition: where HubSpot sends execution requests, and the secret it signs them with.
  controls.put('/__sandbox/workflows/action', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { actionUrl?: unknown; secret?: unknown };
    if (body.actionUrl !== undefined && (typeof body.actionUrl !== 'string' || !/^https?:\/\//.test(body.actionUrl))) {
      return sendError(res, 400, 'VALIDATION_ERROR', 'actionUrl: expected an http(s) URL');
    }
    if (body.secret !== undefined && (typeof body.secret !== 'string' || body.secret.length === 0)) {
      return sendError(res, 400, 'VALIDATION_ERROR', 'secret: expected a non-empty string');
    }
    if (typeof body.actionUrl === 'string') actionUrl = body.actionUrl;
    if (typeof body.secret === 'string') secret = body.secret;
    res.json({ actionUrl: actionTarget() ?? null });
  });

  controls.post('/__sandbox/workflows/enroll', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { objectType?: unknown; objectId?: unknown; signatures?: unknown };
    const objectType = OBJECT_TYPES[String(body.objectType ?? '').toLowerCase()];
    const objectId = String(body.objectId ?? '');
    if (!objectType) return sendError(res, 400, 'VALIDATION_ERROR', 'objectType: expected contact or company');
    if (!/^\d+$/.test(objectId))
      return sendError(res, 400, 'VALIDATION_ERROR', 'objectId: expected a record id (digits)');
    const signatures = body.signatures ?? ACTION_SIGNATURES;
    if (
      !Array.isArray(signatures) ||
      signatures.length === 0 ||
      !signatures.every((v) => (SIGNATURES as readonly unknown[]).includes(v))
    )
      return sendError(res, 400, 'VALIDATION_ERROR', 'signatures: expected a non-empty list of "v2" and "v3"');
    const url = actionTarget();
    if (!url)
      return sendError(
        res,
        409,
        'NOT_CONFIGURED',
        'No action URL: PUT /__sandbox/workflows/action {"actionUrl": ...} first.',
      );
    const callbackId = `ap-${options.portalId}-${Date.now()}-${next++}`;
    const request = {
      callbackId,
      origin: { portalId: options.portalId, actionDefinitionId: 1, actionDefinitionVersion: 1 },
      context: { source: 'WORKFLOWS', workflowId: 1 },
      object: { objectId: Number(objectId), objectType },
      inputFields: {},
    };
    executions.set(callbackId, {
      callbackId,
      sends: 0,
      objectType,
      objectId,
      state: 'failed',
      httpStatus: null,
      outputFields: null,
      completedBy: null,
    });
    const sent: SentStep = { url, request, signatures: signatures as Signature[] };
    sentSteps.set(callbackId, sent);
    res.json(await execute(sent));
  });

  // HubSpot sending a step again (its answer did not arrive): the same request, signed anew.
  controls.post('/__sandbox/workflows/executions/:callbackId/resend', async (req: Request, res: Response) => {
    const sent = sentSteps.get(String(req.params.callbackId));
    if (!sent) return sendError(res, 404, 'OBJECT_NOT_FOUND', 'No execution with this callback id.');
    res.json(await execute(sent));
  });

  controls.get('/__sandbox/workflows/executions/:callbackId', (req: Request, res: Response) => {
    const execution = executions.get(String(req.params.callbackId));
    if (!execution) return sendError(res, 404, 'OBJECT_NOT_FOUND', 'No execution with this callback id.');
    res.json(execution);
  });

  // A card's hubspot.fetch: {"path": "/hubspot/card/contact/123",
  // "method": "GET"|"POST", "body"?, "portalId"?, "userId"?}.
  controls.post('/__sandbox/cards/fetch', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as {
      path?: unknown;
      method?: unknown;
      body?: unknown;
      portalId?: unknown;
      userId?: unknown;
    };
    if (typeof body.path !== 'string' || !body.path.startsWith('/')) {
      return sendError(
        res,
        400,
        'VALIDATION_ERROR',
        'path: expected a path on the app, e.g. /hubspot/card/contact/123',
      );
    }
    const method = body.method === undefined ? 'GET' : String(body.method).toUpperCase();
    if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) {
      return sendError(res, 400, 'VALIDATION_ERROR', 'method: expected GET, POST, PUT, PATCH or DELETE');
    }
    if (!appUrl) return sendError(res, 409, 'NOT_CONFIGURED', 'The sandbox does not know the app URL.');
    const url = new URL(appUrl + body.path);
    url.searchParams.set('userId', String(body.userId ?? 1));
    url.searchParams.set('userEmail', 'sandbox.user@example.com');
    url.searchParams.set('portalId', String(body.portalId ?? options.portalId));
    url.searchParams.set('appId', String(options.appId));
    try {
      const sent = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(body.body ?? {});
      res.json(await signedFetch(method, url.toString(), sent));
    } catch (error) {
      sendError(res, 502, 'FETCH_FAILED', `The app did not answer: ${(error as Error).message}`);
    }
  });

  const api = Router();
  for (const version of HUBSPOT_API_VERSIONS) {
    api.post(`${HUBSPOT_API_PATHS[version].actionCallbacks}/:callbackId/complete`, (req: Request, res: Response) => {
      attempts++;
      if (refuse > 0) {
        refuse--;
        return sendError(res, 502, 'INTERNAL_ERROR', 'Bad gateway; retry the request.');
      }
      const execution = executions.get(String(req.params.callbackId));
      if (!execution)
        return sendError(
          res,
          404,
          'OBJECT_NOT_FOUND',
          `No blocked action execution with callback id ${String(req.params.callbackId)}.`,
        );
      if (execution.state !== 'blocked')
        return sendError(res, 400, 'VALIDATION_ERROR', 'This action execution is not waiting for a callback.');
      const body = (req.body ?? {}) as { outputFields?: unknown; typedOutputs?: unknown };
      if (!isObject(body.outputFields))
        return sendError(res, 400, 'VALIDATION_ERROR', 'outputFields: required, an object');
      // The official client's v4 call has no typedOutputs to send, so the legacy path goes without them.
      if (isDateBased(version) && !isObject(body.typedOutputs))
        return sendError(res, 400, 'VALIDATION_ERROR', 'typedOutputs: required, an object');
      execution.outputFields = body.outputFields;
      execution.state = 'completed';
      execution.completedBy = 'callback';
      res.status(204).end();
    });
  }

  return {
    controls,
    api,
    setAppUrl: (url) => {
      appUrl = url?.replace(/\/+$/, '');
    },
    executions: () => structuredClone([...executions.values()]),
    refuseCallbacks: (n) => {
      refuse = n;
    },
    callbackAttempts: () => attempts,
  };
}
