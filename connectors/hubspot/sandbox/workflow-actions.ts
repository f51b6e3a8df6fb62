/**
 * The app's custom workflow action and record card as HubSpot runs them, for the service running
 * offline: "enrolling" a record sends the action's execution request, signed v3 with the app's secret,
 * to the action URL; an answer of `hs_execution_state: BLOCK` leaves the step waiting until the app
 * calls POST /automation/v4/actions/callbacks/{callbackId}/complete (or its date-based path, where
 * HubSpot's description also requires `typedOutputs`). A card fetch is made as
 * `hubspot.fetch` makes it: signed v3, with userId, userEmail, portalId and appId added to the query.
 */
import express, { Router, type Request, type Response } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS, isDateBased } from '../api-version.js';
import { signV3 } from '../signature.js';
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
  let next = 1;
  let refuse = 0;
  let attempts = 0;

  const actionTarget = () => actionUrl ?? (appUrl ? `${appUrl}/hubspot/actions/enrich` : undefined);

  /** A request as HubSpot signs it: v3 over method, URL, body and timestamp with the app's secret. */
  async function signedFetch(
    method: string,
    url: string,
    body: string | undefined,
  ): Promise<{ status: number; body: unknown }> {
    const timestamp = String(Date.now());
    const headers: Record<string, string> = {
      'X-HubSpot-Signature-v3': signV3(secret, method, url, body ?? '', timestamp),
      'X-HubSpot-Request-Timestamp': timestamp,
      'X-HubSpot-Signature-Version': 'v3',
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
    const body = (req.body ?? {}) as { objectType?: unknown; objectId?: unknown };
    const objectType = OBJECT_TYPES[String(body.objectType ?? '').toLowerCase()];
    const objectId = String(body.objectId ?? '');
    if (!objectType) return sendError(res, 400, 'VALIDATION_ERROR', 'objectType: expected contact or company');
    if (!/^\d+$/.test(objectId))
      return sendError(res, 400, 'VALIDATION_ERROR', 'objectId: expected a record id (digits)');
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
    const execution: ActionExecution = {
      callbackId,
      objectType,
      objectId,
      state: 'failed',
      httpStatus: null,
      outputFields: null,
      completedBy: null,
    };
    executions.set(callbackId, execution);
    try {
      const answer = await signedFetch('POST', url, JSON.stringify(request));
      execution.httpStatus = answer.status;
      const outputs = (answer.body as { outputFields?: Record<string, unknown> } | null)?.outputFields ?? null;
      if (answer.status >= 200 && answer.status < 300) {
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
    res.json(execution);
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
