/**
 * The webhooks journal's API (2026-03), as HubSpot's description of it has it: the global journal
 * (`/webhooks-journal/journal/2026-03/...`, every portal the app is installed in) and the local one
 * (`/webhooks-journal/journal-local/2026-03/...`, one portal by `installPortalId`), subscriptions and
 * their filters, CRM snapshots, and the client-credentials token they all take (`/oauth/v1/token`),
 * which carries the journal scopes it was asked for. A journal read answers where the entry's file is
 * (`url`, until `expiresAt`); the file itself is fetched without a token, as from a signed link.
 *
 * Journal reads are exempt from the portal's ten-secondly and daily limits, as HubSpot's description says.
 */
import { randomBytes } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import {
  FILTER_OPERATORS,
  JOURNAL_ACTIONS,
  JOURNAL_OBJECT_TYPES,
  type JournalEntry,
  type SandboxJournal,
} from './journal.js';
import { sendError, UNAUTHENTICATED_MESSAGE } from './wire-errors.js';

export const JOURNAL_VERSION = '2026-03';
/** How long a journal file's link stays valid. */
export const FILE_LINK_TTL_MS = 5 * 60_000;
const TOKEN_TTL_SECONDS = 1_800;
const MAX_BATCH = 100;

export const JOURNAL_SCOPES = {
  read: 'developer.webhooks_journal.read',
  subscriptionsRead: 'developer.webhooks_journal.subscriptions.read',
  subscriptionsWrite: 'developer.webhooks_journal.subscriptions.write',
  snapshotsRead: 'developer.webhooks_journal.snapshots.read',
  snapshotsWrite: 'developer.webhooks_journal.snapshots.write',
} as const;

export interface JournalRoutesOptions {
  journal: SandboxJournal;
  portalId: number;
  appId: number;
  clientId: string;
  clientSecret: string;
  /** Counts a call for the sandbox's stats. */
  count: (req: Request) => void;
}

interface IssuedToken {
  scopes: Set<string>;
  expiresAt: number;
}

const SubscriptionInput = z.object({
  subscriptionType: z.literal('OBJECT', { error: 'the sandbox journals OBJECT subscriptions only' }),
  portalId: z.number().int().positive(),
  objectTypeId: z.string().refine((t) => t in JOURNAL_OBJECT_TYPES, 'expected 0-1 (contacts) or 0-2 (companies)'),
  actions: z.array(z.enum(JOURNAL_ACTIONS)).min(1),
  properties: z.array(z.string()),
  objectIds: z.array(z.number().int()),
});

const FilterInput = z.object({
  subscriptionId: z.number().int(),
  filter: z.object({
    conditions: z
      .array(
        z.object({
          filterType: z.literal('CRM_OBJECT_PROPERTY'),
          operator: z.enum(FILTER_OPERATORS),
          property: z.string().min(1),
          value: z.string().optional(),
          values: z.array(z.string()).optional(),
        }),
      )
      .min(1),
  }),
});

const SnapshotInput = z.object({
  snapshotRequests: z
    .array(
      z.object({
        objectId: z.number().int(),
        objectTypeId: z.string(),
        portalId: z.number().int(),
        properties: z.array(z.string()),
      }),
    )
    .min(1),
});

const BatchInput = z.object({ inputs: z.array(z.string()).min(1).max(MAX_BATCH) });

function sendInvalid(res: Response, error: z.ZodError): void {
  const errors = error.issues.map((i) => ({
    message: `${i.path.join('.') || 'body'}: ${i.message}`,
    code: 'INVALID_INPUT',
    in: i.path.join('.'),
  }));
  sendError(res, 400, 'VALIDATION_ERROR', `Invalid input: ${errors.map((e) => e.message).join('; ')}`, { errors });
}

export function journalRoutes(options: JournalRoutesOptions): Router {
  const { journal, portalId, appId } = options;
  const tokens = new Map<string, IssuedToken>();
  const r = Router();

  // A client-credentials token for the app, with the scopes asked for (space-separated, as OAuth has it).
  r.post('/oauth/v1/token', express.urlencoded({ extended: false }), (req, res) => {
    options.count(req);
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (body.grant_type !== 'client_credentials') {
      res.status(400).json({ status: 'BAD_GRANT_TYPE', message: 'This sandbox issues client_credentials tokens only' });
      return;
    }
    if (body.client_id !== options.clientId || body.client_secret !== options.clientSecret) {
      res.status(400).json({ status: 'BAD_CLIENT_ID', message: 'missing or unknown client_id or client_secret' });
      return;
    }
    const scopes = new Set((body.scope ?? '').split(/\s+/).filter(Boolean));
    const unknown = [...scopes].filter((s) => !(Object.values(JOURNAL_SCOPES) as string[]).includes(s));
    if (unknown.length) {
      res.status(400).json({ status: 'BAD_SCOPES', message: `scopes not available to this app: ${unknown.join(' ')}` });
      return;
    }
    const token = `journal-${randomBytes(16).toString('hex')}`;
    tokens.set(token, { scopes, expiresAt: Date.now() + TOKEN_TTL_SECONDS * 1000 });
    res.json({ access_token: token, token_type: 'bearer', expires_in: TOKEN_TTL_SECONDS });
  });

  // The file of one entry, behind its link: no token, but the link expires.
  r.get('/__sandbox/journal-files/:offset', (req, res) => {
    const expires = Number(req.query.expires);
    const entry = journal.at(req.params.offset);
    if (!Number.isFinite(expires) || expires < journal.now() || !entry) {
      res.status(403).type('application/xml').send('<Error><Code>AccessDenied</Code></Error>');
      return;
    }
    res.json({
      offset: entry.offset,
      publishedAt: new Date(entry.publishedAt).toISOString(),
      journalEvents: entry.events,
    });
  });

  /** Refuses a call without a live client-credentials token holding `scope`; true when it may go on. */
  const allowed = (req: Request, res: Response, scope: string): boolean => {
    options.count(req);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const issued = token ? tokens.get(token) : undefined;
    if (!issued || issued.expiresAt < Date.now()) {
      sendError(res, 401, 'INVALID_AUTHENTICATION', UNAUTHENTICATED_MESSAGE);
      return false;
    }
    if (!issued.scopes.has(scope)) {
      sendError(res, 403, 'MISSING_SCOPES', 'This app has not been granted all required scopes to make this call.', {
        errors: [
          {
            message: `One or more of the following scopes are required: ${scope}`,
            context: { requiredScopes: [scope] },
          },
        ],
      });
      return false;
    }
    return true;
  };

  const fetchResponse = (req: Request, entry: JournalEntry) => {
    const expiresAt = journal.now() + FILE_LINK_TTL_MS;
    return {
      currentOffset: entry.offset,
      expiresAt: new Date(expiresAt).toISOString(),
      url: `${req.protocol}://${req.get('host')}/__sandbox/journal-files/${entry.offset}?expires=${expiresAt}`,
    };
  };

  const batchResponse = (req: Request, entries: JournalEntry[], started: string) => ({
    status: 'COMPLETE',
    results: entries.map((e) => fetchResponse(req, e)),
    requestedAt: started,
    startedAt: started,
    completedAt: new Date().toISOString(),
  });

  const countOf = (req: Request, res: Response): number | undefined => {
    const count = Number(req.params.count);
    if (!Number.isInteger(count) || count < 1) {
      sendError(
        res,
        400,
        'VALIDATION_ERROR',
        `count must be a whole number of at least 1, not ${String(req.params.count)}`,
      );
      return undefined;
    }
    return Math.min(count, MAX_BATCH);
  };

  /** The local journal's portal must be this one; the global journal is every portal the app is in (this one). */
  const installed = (req: Request, res: Response): boolean => {
    const asked = req.query.installPortalId;
    if (asked === undefined || Number(asked) === portalId) return true;
    sendError(res, 404, 'OBJECT_NOT_FOUND', `The app is not installed in portal ${String(asked)}.`);
    return false;
  };

  const unknownOffset = (res: Response, offset: string) =>
    sendError(
      res,
      404,
      'OBJECT_NOT_FOUND',
      `Offset ${offset} is not in the journal: it has expired (entries are kept 3 days) or never existed.`,
    );

  for (const variant of ['journal', 'journal-local']) {
    const base = `/webhooks-journal/${variant}/${JOURNAL_VERSION}`;
    const single = (req: Request, res: Response, entry: JournalEntry | undefined) => {
      if (entry) res.json(fetchResponse(req, entry));
      else res.status(204).end();
    };
    r.get(`${base}/earliest`, (req, res) => {
      if (allowed(req, res, JOURNAL_SCOPES.read) && installed(req, res)) single(req, res, journal.earliest(1)[0]);
    });
    r.get(`${base}/latest`, (req, res) => {
      if (allowed(req, res, JOURNAL_SCOPES.read) && installed(req, res)) single(req, res, journal.latest(1)[0]);
    });
    r.get(`${base}/offset/:offset/next`, (req, res) => {
      if (!allowed(req, res, JOURNAL_SCOPES.read) || !installed(req, res)) return;
      const next = journal.after(req.params.offset, 1);
      if (next === undefined) unknownOffset(res, req.params.offset);
      else single(req, res, next[0]);
    });
    r.get(`${base}/batch/earliest/:count`, (req, res) => {
      const started = new Date().toISOString();
      if (!allowed(req, res, JOURNAL_SCOPES.read) || !installed(req, res)) return;
      const count = countOf(req, res);
      if (count !== undefined) res.json(batchResponse(req, journal.earliest(count), started));
    });
    r.get(`${base}/batch/latest/:count`, (req, res) => {
      const started = new Date().toISOString();
      if (!allowed(req, res, JOURNAL_SCOPES.read) || !installed(req, res)) return;
      const count = countOf(req, res);
      if (count !== undefined) res.json(batchResponse(req, journal.latest(count), started));
    });
    r.get(`${base}/batch/:offset/next/:count`, (req, res) => {
      const started = new Date().toISOString();
      if (!allowed(req, res, JOURNAL_SCOPES.read) || !installed(req, res)) return;
      const count = countOf(req, res);
      if (count === undefined) return;
      const next = journal.after(req.params.offset, count);
      if (next === undefined) unknownOffset(res, req.params.offset);
      else res.json(batchResponse(req, next, started));
    });
    r.post(`${base}/batch/read`, express.json(), (req, res) => {
      const started = new Date().toISOString();
      if (!allowed(req, res, JOURNAL_SCOPES.read) || !installed(req, res)) return;
      const input = BatchInput.safeParse(req.body);
      if (!input.success) return sendInvalid(res, input.error);
      const found = input.data.inputs.map((offset) => ({ offset, entry: journal.at(offset) }));
      const missing = found.filter((f) => !f.entry);
      const body = batchResponse(
        req,
        found.flatMap((f) => (f.entry ? [f.entry] : [])),
        started,
      );
      if (missing.length === 0) return void res.json(body);
      res.status(207).json({
        ...body,
        numErrors: missing.length,
        errors: missing.map((m) => ({
          status: 'error',
          category: 'OBJECT_NOT_FOUND',
          message: `Offset ${m.offset} is not in the journal`,
          context: { offset: [m.offset] },
          errors: [],
          links: {},
        })),
      });
    });
    r.get(`${base}/status/:statusId`, (req, res) => {
      if (!allowed(req, res, JOURNAL_SCOPES.snapshotsRead)) return;
      const status = journal.snapshotStatus(req.params.statusId);
      if (status) res.json(status);
      else sendError(res, 404, 'OBJECT_NOT_FOUND', `No snapshot ${req.params.statusId}`);
    });
  }

  const subscriptions = `/webhooks-journal/subscriptions/${JOURNAL_VERSION}`;
  r.get(subscriptions, (req, res) => {
    if (allowed(req, res, JOURNAL_SCOPES.subscriptionsRead)) res.json({ results: journal.subscriptionsOf(appId) });
  });
  r.post(subscriptions, express.json(), (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsWrite)) return;
    const input = SubscriptionInput.safeParse(req.body);
    if (!input.success) return sendInvalid(res, input.error);
    if (input.data.portalId !== portalId)
      return sendError(res, 400, 'VALIDATION_ERROR', `The app is not installed in portal ${input.data.portalId}.`);
    res.json(journal.upsertSubscription(appId, input.data));
  });
  r.post(`${subscriptions}/filters`, express.json(), (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsWrite)) return;
    const input = FilterInput.safeParse(req.body);
    if (!input.success) return sendInvalid(res, input.error);
    if (!journal.subscription(appId, input.data.subscriptionId))
      return sendError(res, 404, 'OBJECT_NOT_FOUND', `No subscription ${input.data.subscriptionId}`);
    res.json({ filterId: journal.createFilter(input.data.subscriptionId, input.data.filter.conditions).id });
  });
  r.get(`${subscriptions}/filters/subscription/:subscriptionId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsRead)) return;
    const id = Number(req.params.subscriptionId);
    if (!journal.subscription(appId, id)) return sendError(res, 404, 'OBJECT_NOT_FOUND', `No subscription ${id}`);
    res.json(journal.filtersOf(id).map(({ id: filterId, createdAt, filter }) => ({ id: filterId, createdAt, filter })));
  });
  r.get(`${subscriptions}/filters/:filterId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsRead)) return;
    const found = journal.filter(appId, Number(req.params.filterId));
    if (!found) return sendError(res, 404, 'OBJECT_NOT_FOUND', `No filter ${req.params.filterId}`);
    res.json({ id: found.id, createdAt: found.createdAt, filter: found.filter });
  });
  r.delete(`${subscriptions}/filters/:filterId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsWrite)) return;
    if (journal.deleteFilter(appId, Number(req.params.filterId))) res.status(204).end();
    else sendError(res, 404, 'OBJECT_NOT_FOUND', `No filter ${req.params.filterId}`);
  });
  r.delete(`${subscriptions}/portals/:portalId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsWrite)) return;
    journal.deletePortalSubscriptions(appId, Number(req.params.portalId));
    res.status(204).end();
  });
  r.get(`${subscriptions}/:subscriptionId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsRead)) return;
    const found = journal.subscription(appId, Number(req.params.subscriptionId));
    if (found) res.json(found);
    else sendError(res, 404, 'OBJECT_NOT_FOUND', `No subscription ${req.params.subscriptionId}`);
  });
  r.delete(`${subscriptions}/:subscriptionId`, (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.subscriptionsWrite)) return;
    if (journal.deleteSubscription(appId, Number(req.params.subscriptionId))) res.status(204).end();
    else sendError(res, 404, 'OBJECT_NOT_FOUND', `No subscription ${req.params.subscriptionId}`);
  });

  r.post(`/webhooks-journal/snapshots/${JOURNAL_VERSION}/crm`, express.json(), (req, res) => {
    if (!allowed(req, res, JOURNAL_SCOPES.snapshotsWrite)) return;
    const input = SnapshotInput.safeParse(req.body);
    if (!input.success) return sendInvalid(res, input.error);
    res.json({
      snapshotResponses: journal.snapshot(input.data.snapshotRequests).map(({ request, statusId }) => ({
        objectId: request.objectId,
        objectTypeId: request.objectTypeId,
        portalId: request.portalId,
        snapshotStatusId: statusId,
      })),
    });
  });

  return r;
}
