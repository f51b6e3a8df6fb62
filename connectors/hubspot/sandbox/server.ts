/**
 * A local HubSpot portal that `@hubspot/api-client` talks to unmodified (point `basePath` at it):
 * token check, the tier's rate limits, contacts and companies with HubSpot's properties and
 * validation, properties, associations, search, signed webhook delivery, and the app's webhooks journal.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { HubspotProperty } from '../property-wire.js';
import {
  objectTypeOf,
  SandboxObjectStore,
  type ChangeSource,
  type ObjectType,
  type StoredObject,
} from './object-store.js';
import { RatePolicy, TIER_LIMITS, type SandboxTier } from './rate-policy.js';
import { missingRecordHtml, recordPageHtml } from '../../sandbox/record-page-html.js';
import { accountRoutes } from './routes-account.js';
import { keepPortalIn } from './portal-file.js';
import { associationRoutes } from './routes-associations.js';
import { objectRoutes } from './routes-objects.js';
import { schemaRoutes } from './routes-schema.js';
import { SandboxLists, type SandboxListOptions } from './routes-lists.js';
import { SandboxActivities, type SandboxTask } from './routes-activities.js';
import type { ValidationRule } from './property-validation.js';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';
import { errorBody, sendError, UNAUTHENTICATED_MESSAGE } from './wire-errors.js';
import { WebhookSender, type WebhookStats } from './webhook-sender.js';
import { workflowActions, type ActionExecution } from './workflow-actions.js';
import { SandboxJournal } from './journal.js';
import { journalRoutes } from './routes-journal.js';

/** HubSpot's object type ids in record page paths. */
const RECORD_PAGE_TYPES: Record<string, ObjectType> = { '0-1': 'contacts', '0-2': 'companies' };

export interface HubspotSandboxOptions {
  port?: number;
  host?: string;
  accessToken?: string;
  /** The app's client secret; webhooks are signed with it, and it gets the journal's client-credentials token. */
  clientSecret?: string;
  /** The app's client id, for the journal's client-credentials token; `sandbox-client-id` by default. */
  clientId?: string;
  /** The webhooks journal's clock (entries older than three days by it are dropped); Date.now by default. */
  journalNow?: () => number;
  webhookUrl?: string;
  /** The app's public URL (the service): where workflow actions and card fetches go (workflow-actions.ts). */
  appUrl?: string;
  tier?: SandboxTier;
  /** Length of the rolling rate window (HubSpot: 10 s); tests shorten it. */
  rateWindowMs?: number;
  /** Overrides the tier's calls per window. */
  rateLimit?: number;
  dailyLimit?: number;
  /** Delays between webhook redeliveries (HubSpot spreads 10 over a day); tests shorten them. */
  webhookDelaysMs?: number[];
  /** A receiver slower than this is treated as failed, as HubSpot does after 5 s. */
  webhookTimeoutMs?: number;
  /** Property changes that trigger a webhook, in addition to the defaults. */
  webhookProperties?: Partial<Record<ObjectType, string[]>>;
  customProperties?: Partial<Record<ObjectType, HubspotProperty[]>>;
  /** The portal's id (HubSpot's hub id), which the account details and the webhooks carry; 62515 by default. */
  portalId?: number;
  /**
   * Where the portal keeps its data across restarts (`<dataDir>/hubspot-portal-<portalId>.json`): contacts,
   * companies, associations, custom properties and the id counter. Without it the portal lives in memory.
   */
  dataDir?: string;
  /** The portal's IANA time zone (default Australia/Sydney: real portals are rarely on UTC). */
  timeZone?: string;
  /**
   * How long a created or changed object takes to show in search results (HubSpot indexes with a lag of
   * a few seconds; default 2 s). Until then search finds the object as it was, or not at all if new.
   */
  searchLagMs?: number;
  /** Searches per second per token before a SECONDLY 429 (HubSpot: 5). */
  searchesPerSecond?: number;
  /**
   * Faults for load and chaos tests: shares (0..1) of API calls refused with a 429 or a 502 before they do anything.
   */
  faults?: HubspotFaults;
  /**
   * Properties the portal requires, by object: an app's create or update through a date-based API
   * version that leaves one empty is refused with a 400 VALIDATION_ERROR naming it, as HubSpot does
   * from API version 2026-09; the legacy paths take it.
   */
  require?: Partial<Record<ObjectType, string[]>>;
  /**
   * Properties the portal requires when another property holds a value (HubSpot's conditional required
   * properties), by object, enforced like `require`: `{ companies: [{ property: 'industry', when:
   * { property: 'lifecyclestage', value: 'customer' } }] }`.
   */
  requireWhen?: Partial<Record<ObjectType, Required<ValidationRule>[]>>;
}

/** One record's properties as one update request sent them. */
export interface SandboxWrite {
  objectType: ObjectType;
  id: string;
  properties: Record<string, unknown>;
}

/**
 * Shares of calls refused on purpose. They are spread evenly, not drawn at random: of n calls,
 * round(n x rate) are refused, the first about halfway to 1/rate, so a short run sees its faults too.
 */
export interface HubspotFaults {
  rate429?: number;
  rate5xx?: number;
}

/** Error diffusion: true on about `rate` of the calls, evenly spaced. */
function evenly(rate = 0): () => boolean {
  let due = 0.5;
  return () => {
    if (rate <= 0) return false;
    due += rate;
    if (due < 1) return false;
    due -= 1;
    return true;
  };
}

export interface HubspotSandboxStats {
  calls: number;
  byEndpoint: Record<string, number>;
  rateLimited: { TEN_SECONDLY_ROLLING: number; DAILY: number; SECONDLY: number };
  unauthorized: number;
  /** Calls refused on purpose (faults). */
  injected: { '429': number; '5xx': number };
  webhooks: WebhookStats;
}

export interface HubspotSandbox {
  url: string;
  port: number;
  portalId: number;
  store: SandboxObjectStore;
  setWebhookUrl(url: string | undefined): void;
  /** Where workflow actions and card fetches go: the service's public URL. */
  setAppUrl(url: string | undefined): void;
  /** Workflow action steps run so far, with how each completed. */
  actionExecutions(): ActionExecution[];
  /** The next `n` workflow callbacks are refused with a 502 (a HubSpot outage). */
  refuseCallbacks(n: number): void;
  /** Workflow callbacks received, refused ones included. */
  callbackAttempts(): number;
  stats(): HubspotSandboxStats;
  resetStats(): void;
  /** Spends the day's allocation: the next call gets the DAILY 429. */
  exhaustDailyLimit(): void;
  setFaults(faults: HubspotFaults): void;
  /** As a person in HubSpot's UI (CRM_UI) unless `source` says how else it was made (IMPORT, INTEGRATION, ...). */
  createContact(properties: Record<string, string>, source?: ChangeSource): StoredObject;
  createCompany(properties: Record<string, string>): StoredObject;
  getContact(id: string): Record<string, string> | undefined;
  getCompany(id: string): Record<string, string> | undefined;
  updateRecord(objectType: ObjectType, id: string, properties: Record<string, string>): void;
  /** From now on, keep every update request's inputs, so a test can tell whether a value was written twice. */
  recordWrites(): void;
  /** Update inputs received since `recordWrites`, in order (batch and single). */
  writes(): SandboxWrite[];
  /** A static list of these records (a backfill's, refresh's or job-change sweep's segment); its id. */
  createList(recordIds: string[], options?: SandboxListOptions): string;
  /** Tasks created over the API (job-change actions), oldest first. */
  tasks(): SandboxTask[];
  /** Resolves when queued webhooks have been attempted once. */
  webhooksIdle(): Promise<void>;
  /** The app's webhooks journal: its entries, subscriptions and `age` (let days pass for its retention). */
  journal: SandboxJournal;
  close(): Promise<void>;
}

export const DEFAULT_WEBHOOK_PROPERTIES: Record<ObjectType, string[]> = {
  contacts: ['email', 'hs_linkedin_url'],
  companies: ['domain', 'website'],
};

/** The search endpoint of any object type and API version: it has a limit of its own. */
const SEARCH_PATH = new RegExp(
  `^(${HUBSPOT_API_VERSIONS.map((v) => HUBSPOT_API_PATHS[v].objects).join('|')})/[^/]+/search$`,
);

function endpointKey(req: Request): string {
  return `${req.method} ${req.path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`;
}

/** The app the sandbox's token belongs to, and the one its webhooks are delivered to. */
export const SANDBOX_APP_ID = 1_000_001;
/**
 * A second app in the portal, such as an import or sync tool: its changes come as INTEGRATION with its
 * own app id as sourceId, and it has a rate limit of its own.
 */
export const IMPORTER_TOKEN = 'sandbox-importer-token';
export const IMPORTER_APP_ID = 1_000_002;

export async function startHubspotSandbox(options: HubspotSandboxOptions = {}): Promise<HubspotSandbox> {
  const token = options.accessToken ?? 'sandbox-token';
  const tier = TIER_LIMITS[options.tier ?? 'starter'];
  const timeZone = options.timeZone ?? 'Australia/Sydney';
  const policy = new RatePolicy(
    options.rateLimit ?? tier.perWindow,
    options.rateWindowMs ?? 10_000,
    options.dailyLimit ?? tier.daily,
    Date.now,
    timeZone,
  );
  const searchPolicy = new RatePolicy(options.searchesPerSecond ?? 5, 1_000, Number.MAX_SAFE_INTEGER);
  const importerPolicy = new RatePolicy(tier.perWindow, 10_000, tier.daily, Date.now, timeZone);
  const appOfToken = new Map([
    [`Bearer ${token}`, SANDBOX_APP_ID],
    [`Bearer ${IMPORTER_TOKEN}`, IMPORTER_APP_ID],
  ]);
  const portalId = options.portalId ?? 62515;
  const subscribed = (type: ObjectType) =>
    new Set([...DEFAULT_WEBHOOK_PROPERTIES[type], ...(options.webhookProperties?.[type] ?? [])]);
  const sender = new WebhookSender({
    url: options.webhookUrl,
    clientSecret: options.clientSecret ?? 'sandbox-client-secret',
    portalId,
    appId: SANDBOX_APP_ID,
    subscribed: { contacts: subscribed('contacts'), companies: subscribed('companies') },
    delaysMs: options.webhookDelaysMs,
    timeoutMs: options.webhookTimeoutMs,
  });
  const store = new SandboxObjectStore((change) => {
    kept?.changed();
    sender.enqueue(change);
    journal.record(change);
  }, options.customProperties);
  const journal = new SandboxJournal({
    portalId,
    appId: SANDBOX_APP_ID,
    changed: () => kept?.changed(),
    properties: (type, id) => store.get(type, id)?.properties,
    now: options.journalNow,
  });
  const kept = options.dataDir === undefined ? undefined : keepPortalIn(options.dataDir, portalId, store, journal);
  const activities = new SandboxActivities();
  const lists = new SandboxLists();
  store.searchLagMs = options.searchLagMs ?? 2_000;
  const rulesOf = (type: ObjectType): ValidationRule[] => [
    ...(options.require?.[type] ?? []).map((property) => ({ property })),
    ...(options.requireWhen?.[type] ?? []),
  ];
  store.rules = { contacts: rulesOf('contacts'), companies: rulesOf('companies') };

  const freshStats = () => ({
    calls: 0,
    byEndpoint: {} as Record<string, number>,
    rateLimited: { TEN_SECONDLY_ROLLING: 0, DAILY: 0, SECONDLY: 0 },
    unauthorized: 0,
    injected: { '429': 0, '5xx': 0 },
  });
  let stats = freshStats();
  let refuse429 = evenly(options.faults?.rate429);
  let refuse5xx = evenly(options.faults?.rate5xx);

  const actions = workflowActions({
    portalId,
    appId: SANDBOX_APP_ID,
    clientSecret: options.clientSecret ?? 'sandbox-client-secret',
    appUrl: options.appUrl,
  });

  const app = express();
  app.disable('x-powered-by');
  app.use(actions.controls);
  // Before the portal's token check and limits: the journal takes its own token and is exempt from them.
  app.use(
    journalRoutes({
      journal,
      portalId,
      appId: SANDBOX_APP_ID,
      clientId: options.clientId ?? 'sandbox-client-id',
      clientSecret: options.clientSecret ?? 'sandbox-client-secret',
      count: (req) => {
        // By route, not path: offsets would make a key each.
        const key = `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? req.path}`;
        stats.byEndpoint[key] = (stats.byEndpoint[key] ?? 0) + 1;
      },
    }),
  );
  // Lets time pass for the webhooks journal: every entry kept becomes `ms` older (three days: gone).
  app.post('/__sandbox/journal/age', express.json(), (req, res) => {
    const ms = (req.body as { ms?: unknown } | undefined)?.ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      res.status(400).json({ message: 'POST /__sandbox/journal/age with {"ms": <milliseconds to let pass>}' });
      return;
    }
    journal.age(ms);
    res.json({ entries: journal.list().length });
  });
  app.use(lists.seedRoutes());
  app.get('/__sandbox/stats', (_req, res) => {
    res.json({ ...stats, webhooks: sender.stats });
  });
  // A person looking at a record in HubSpot's UI: its properties, without spending an API call.
  app.get('/__sandbox/ui/:objectType/:id', (req, res) => {
    const type =
      req.params.objectType === 'contacts' || req.params.objectType === 'companies' ? req.params.objectType : undefined;
    const found = type ? plain(store.get(type, req.params.id)) : undefined;
    if (!found) {
      res.status(404).json({ message: 'GET /__sandbox/ui/contacts|companies/{id} of a record that exists' });
      return;
    }
    res.json({ id: req.params.id, properties: found });
  });
  // A person creating a record in HubSpot's UI (changeSource CRM_UI), for tools outside this process;
  // the API's own create is an app's (INTEGRATION).
  app.post('/__sandbox/ui/:objectType', express.json(), (req, res) => {
    const type =
      req.params.objectType === 'contacts' || req.params.objectType === 'companies' ? req.params.objectType : undefined;
    const properties = (req.body as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!type || !properties || typeof properties !== 'object') {
      res.status(400).json({ message: 'POST /__sandbox/ui/contacts|companies with {"properties": {...}}' });
      return;
    }
    try {
      const created = store.create(type, properties, 'CRM_UI');
      res.status(201).json({ id: created.id });
    } catch (error) {
      res.status(400).json({ message: (error as Error).message });
    }
  });
  // The record page of HubSpot's web app, at the same path (a browser's page, so no API token).
  app.get('/contacts/:portalId/record/:typeId/:id', (req, res) => {
    const type = RECORD_PAGE_TYPES[req.params.typeId];
    const object = type && Number(req.params.portalId) === portalId ? store.get(type, req.params.id) : undefined;
    res.type('html');
    const { portalId: portal, typeId, id } = req.params;
    if (!type || !object)
      return res.status(404).send(missingRecordHtml('HubSpot', `record ${typeId}/${id} in portal ${portal}`));
    const p = Object.fromEntries(object.properties);
    const title =
      type === 'companies' ? (p.name ?? p.domain) : [p.firstname, p.lastname].filter(Boolean).join(' ') || p.email;
    const kind = type === 'companies' ? 'Company' : 'Contact';
    res.send(recordPageHtml('HubSpot', `${kind} ${object.id}${title ? `: ${title}` : ''}`, p));
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    const key = endpointKey(req);
    stats.calls++;
    stats.byEndpoint[key] = (stats.byEndpoint[key] ?? 0) + 1;
    const appId = appOfToken.get(req.headers.authorization ?? '');
    if (appId === undefined) {
      stats.unauthorized++;
      return sendError(res, 401, 'INVALID_AUTHENTICATION', UNAUTHENTICATED_MESSAGE);
    }
    res.locals.appId = appId;
    if (refuse429()) {
      stats.injected['429']++;
      return res.status(429).json({
        ...errorBody('RATE_LIMITS', 'You have reached your ten_secondly_rolling limit.'),
        errorType: 'RATE_LIMIT',
        policyName: 'TEN_SECONDLY_ROLLING',
        groupName: `api-calls:${portalId}`,
      });
    }
    if (refuse5xx()) {
      stats.injected['5xx']++;
      return sendError(res, 502, 'INTERNAL_ERROR', 'Bad gateway; retry the request.');
    }
    if (req.method === 'POST' && SEARCH_PATH.test(req.path) && !searchPolicy.take().ok) {
      // Search has its own limit, per token and second; HubSpot answers it with policy SECONDLY.
      stats.rateLimited.SECONDLY++;
      return res.status(429).json({
        ...errorBody('RATE_LIMITS', 'You have reached your secondly limit.'),
        errorType: 'RATE_LIMIT',
        policyName: 'SECONDLY',
      });
    }
    const decision = (appId === IMPORTER_APP_ID ? importerPolicy : policy).take();
    res.set(decision.headers);
    if (!decision.ok) {
      stats.rateLimited[decision.policyName]++;
      const message =
        decision.policyName === 'DAILY'
          ? 'You have reached your daily limit.'
          : 'You have reached your ten_secondly_rolling limit.';
      return res.status(429).json({
        ...errorBody('RATE_LIMITS', message),
        errorType: 'RATE_LIMIT',
        policyName: decision.policyName,
        groupName: `api-calls:${portalId}`,
      });
    }
    next();
  });
  app.use(express.json({ limit: '10mb' }));
  // Associations, properties and groups change without a record's change event: any write may have changed them.
  if (kept)
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET') res.once('finish', () => kept.changed());
      next();
    });
  // Off by default: a sandbox left running for days must not grow without bound.
  let writeLog: SandboxWrite[] | undefined;
  const logWrite = (segment: unknown, id: unknown, properties: unknown) => {
    const objectType = objectTypeOf(String(segment));
    if (writeLog && objectType && properties !== null && typeof properties === 'object') {
      writeLog.push({ objectType, id: String(id), properties: { ...(properties as Record<string, unknown>) } });
    }
  };
  for (const version of HUBSPOT_API_VERSIONS) {
    const objects = `${HUBSPOT_API_PATHS[version].objects}/:objectType`;
    app.post(`${objects}/batch/update`, (req: Request, _res, next) => {
      const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
      if (Array.isArray(inputs))
        for (const input of inputs as { id?: unknown; properties?: unknown }[])
          logWrite(req.params.objectType, input?.id, input?.properties);
      next();
    });
    app.patch(`${objects}/:id`, (req: Request, _res, next) => {
      logWrite(req.params.objectType, req.params.id, (req.body as { properties?: unknown } | undefined)?.properties);
      next();
    });
  }
  app.use(actions.api);
  app.use(accountRoutes({ portalId, timeZone, usage: () => policy.usage() }));
  // Before the generic object routes, which serve contacts and companies only.
  app.use(activities.routes(store));
  app.use(lists.routes());
  app.use(objectRoutes(store));
  app.use(schemaRoutes(store));
  app.use(associationRoutes(store, activities));
  app.use((_req: Request, res: Response) =>
    sendError(res, 404, 'OBJECT_NOT_FOUND', 'No route for this path in the HubSpot sandbox.'),
  );
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.parse.failed')
      return sendError(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${err.message}`);
    sendError(res, err.status ?? 500, 'INTERNAL_ERROR', err.message);
  });

  // Express 5 hands a failed listen (the port in use) to this callback rather than only to 'error'.
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 0, options.host ?? '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  });
  const port = (server.address() as AddressInfo).port;
  const plain = (o: StoredObject | undefined) => (o ? Object.fromEntries(o.properties) : undefined);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    portalId,
    store,
    setWebhookUrl: (url) => sender.setUrl(url),
    setAppUrl: (url) => actions.setAppUrl(url),
    actionExecutions: () => actions.executions(),
    refuseCallbacks: (n) => actions.refuseCallbacks(n),
    callbackAttempts: () => actions.callbackAttempts(),
    stats: () => structuredClone({ ...stats, webhooks: sender.stats }),
    resetStats: () => {
      stats = freshStats();
    },
    setFaults: (next) => {
      refuse429 = evenly(next.rate429);
      refuse5xx = evenly(next.rate5xx);
    },
    exhaustDailyLimit: () => policy.exhaustDaily(),
    createContact: (properties, source) => store.create('contacts', properties, source),
    createCompany: (properties) => store.create('companies', properties),
    getContact: (id) => plain(store.get('contacts', id)),
    getCompany: (id) => plain(store.get('companies', id)),
    updateRecord: (type, id, properties) => {
      const object = store.get(type, id);
      if (!object) throw new Error(`No ${type} record ${id} in the sandbox`);
      store.update(type, object, properties);
    },
    recordWrites: () => {
      writeLog ??= [];
    },
    writes: () => structuredClone(writeLog ?? []),
    tasks: () => activities.tasks(),
    createList: (recordIds, options) => lists.create(recordIds, options),
    webhooksIdle: () => sender.idle(),
    journal,
    close: async () => {
      sender.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      kept?.flush();
    },
  };
}
