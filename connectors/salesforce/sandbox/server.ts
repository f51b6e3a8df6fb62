/**
 * A Salesforce org on one port that jsforce talks to unmodified: OAuth token endpoint, the REST data
 * API (rest-routes.ts) with Bulk API 2.0 query and ingest jobs (bulk-query.ts, bulk-ingest.ts), the Metadata
 * API's field and permission set calls (metadata-api.ts), outbound message delivery (outbound.ts), list views
 * and reports (segments.ts) and `GET /__sandbox/stats`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { idSuffix, toId18 } from '../ids.js';
import { INTEGRATION_PERMISSION_SET } from '../permission-set.js';
import { metadataRoutes } from './metadata-api.js';
import { BulkIngest, type BulkIngestOptions, type IngestStats } from './bulk-ingest.js';
import { OrgData, type Fields, type RecordChange, type SaveResult } from './org-data.js';
import { LongRunningRequests, type LongRunningOptions } from './long-running.js';
import { keepOrgIn } from './org-file.js';
import { SandboxOAuth } from './oauth.js';
import { OutboundDelivery, type OutboundStats } from './outbound.js';
import { restRoutes, type ApiUsage } from './rest-routes.js';
import { BulkQueryJobs, type BulkQueryOptions } from './bulk-query.js';
import { SandboxSegments, type ListViewSpec, type ReportSpec } from './segments.js';
import { missingRecordHtml, recordPageHtml } from '../../sandbox/record-page-html.js';
import { SANDBOX_OBJECT_TYPES, type DescribeField, type SandboxObjectType } from '../standard-fields.js';

const withSuffix = (id15: string) => id15 + idSuffix(id15);
export const SANDBOX_ORG_ID = withSuffix('00D8d0000000001');
const USER_ID = withSuffix('0058d0000000001');
const VERSIONS = ['58.0', '59.0', '60.0', '61.0', '62.0'];
const OUTBOUND_FIELDS = [
  'Id',
  'FirstName',
  'LastName',
  'Name',
  'Email',
  'Company',
  'Website',
  'CreatedDate',
  'LastModifiedDate',
];

export interface SalesforceSandboxOptions {
  /** false: the integration user lacks "View Setup and Configuration": GET /limits answers 403. */
  viewSetup?: boolean;
  /**
   * The concurrent long-running request limit (`limit` requests running `afterMs` or longer; 25 and
   * 20 s, as in a production org) and `answerDelayMs`, how long every API answer takes.
   */
  longRunning?: LongRunningOptions;
  /**
   * Fields the integration user cannot see (no field-level security
   * access): left out of describe, INVALID_FIELD when named.
   */
  hiddenFields?: Partial<Record<SandboxObjectType, string[]>>;
  port?: number;
  host?: string;
  /** The org's id (15 or 18 characters, 00D...); SANDBOX_ORG_ID by default. */
  orgId?: string;
  /**
   * Where the org keeps its data across restarts (`<dataDir>/salesforce-org-<orgId>.json`): records, custom
   * fields and the id counter. Without it the org lives in memory.
   */
  dataDir?: string;
  clientId?: string;
  clientSecret?: string;
  /** Public key that JWT bearer assertions must verify against; the sandbox's test key pair by default. */
  jwtPublicKey?: KeyObject | string;
  outboundUrl?: string;
  /** The org's 24-hour API allocation. */
  dailyLimit?: number;
  customFields?: Partial<Record<SandboxObjectType, Partial<DescribeField>[]>>;
  /** Fields whose change sends an outbound message (a create always does). */
  watchedFields?: string[];
  outboundDelaysMs?: number[];
  outboundBatchWindowMs?: number;
  /** Records per query batch; Salesforce's default is 2000. */
  queryPageSize?: number;
  /** Bulk API 2.0 query jobs: how long one runs, and the rows per set of results by default. */
  bulkQuery?: BulkQueryOptions;
  /** Permission sets assigned to the integration user; Crm_Enrich_Integration, as deploy/salesforce sets up. */
  assignedPermissionSets?: string[];
  /**
   * Contacts to Multiple Accounts switched on (the default here): AccountContactRelation exists and each
   * Contact's AccountId has its direct relationship. false: an org without it (the object is unknown).
   */
  contactsToMultipleAccounts?: boolean;
  /** Bulk API 2.0 ingest limits (records per rolling 24 hours, upload size) and how soon a closed job runs. */
  bulkIngest?: BulkIngestOptions;
}

export interface SalesforceSandboxStats {
  apiCalls: number;
  byOperation: Record<string, number>;
  queriesByFilter: Record<string, number>;
  dailyLimit: number;
  remaining: number;
  /** Requests refused as over the concurrent long-running request limit. */
  longRunningRefusals: number;
  tokensIssued: number;
  outbound: OutboundStats;
  bulkIngest: IngestStats;
}

export interface SalesforceSandbox {
  url: string;
  port: number;
  orgId: string;
  /** A valid token issued at start, for tests that skip the OAuth flow. */
  accessToken: string;
  setOutboundUrl(url: string | undefined): void;
  /** A new valid token, as after an OAuth flow (e.g. once expireTokens has run). */
  issueToken(): string;
  expireTokens(): void;
  setApiUsage(used: number): void;
  /** Refuses the next `n` API requests as over the concurrent long-running request limit. */
  refuseConcurrent(n: number): void;
  /**
   * Other integrations of the org hold `n` long-running requests, as many as the limit to have every
   * new request refused with ConcurrentPerOrgLongTxn; 0 lets them go.
   */
  holdLongRunning(n: number): void;
  /** How long every API answer takes from now on. */
  setAnswerDelay(ms: number): void;
  /** The next `n` Bulk API 2.0 query jobs end Failed, as a query Salesforce gave up retrying does. */
  failQueryJobs(n: number): void;
  stats(): SalesforceSandboxStats;
  /** `notify: false` creates a record as one that existed before the outbound message rule did: no message is sent. */
  createRecord(
    type: SandboxObjectType,
    fields: Record<string, string | number | boolean | null>,
    options?: { notify?: boolean },
  ): string;
  updateRecord(type: SandboxObjectType, id: string, fields: Record<string, string | number | boolean | null>): void;
  getRecord(type: SandboxObjectType, id: string): Fields | undefined;
  /** Every record of a type, oldest first, with its id. */
  records(type: SandboxObjectType): (Fields & { Id: string })[];
  /** A list view of an object's records (all, or those meeting a SOQL condition); its id (00B...). */
  createListView(spec: ListViewSpec): string;
  /** A tabular report of an object's records; its id (00O...). */
  createReport(spec: ReportSpec): string;
  close(): Promise<void>;
}

export async function startSalesforceSandbox(options: SalesforceSandboxOptions = {}): Promise<SalesforceSandbox> {
  const orgId = toId18(options.orgId ?? SANDBOX_ORG_ID);
  if (!orgId?.startsWith('00D'))
    throw new Error(`orgId: expected a 15- or 18-character organization id starting with 00D, got '${options.orgId}'`);
  const watched = new Set(options.watchedFields ?? ['Email', 'Website', 'Company']);
  let baseUrl = '';
  const usage: ApiUsage = {
    dailyLimit: options.dailyLimit ?? 15_000,
    used: 0,
    byOperation: {},
    queriesByFilter: {},
    concurrentRefusals: 0,
  };
  const longRunning = new LongRunningRequests(options.longRunning);
  const oauth = new SandboxOAuth({
    clientId: options.clientId ?? 'sandbox',
    clientSecret: options.clientSecret ?? 'sandbox',
    jwtPublicKey: options.jwtPublicKey,
    orgId,
    userId: USER_ID,
  });

  const outbound = new OutboundDelivery({
    orgId,
    actionId: withSuffix('04k8d0000000001'),
    instanceUrl: () => baseUrl,
    url: options.outboundUrl,
    delaysMs: options.outboundDelaysMs,
    batchWindowMs: options.outboundBatchWindowMs,
  });
  let quiet = false;
  const onChange = (change: RecordChange) => {
    kept?.changed();
    // Outbound messages are set up for the enriched objects only; a Task or a relationship sends none.
    if (quiet || change.type === 'Task' || change.type === 'AccountContactRelation') return;
    if (!change.created && !change.changed.some((f) => watched.has(f))) return;
    const record = org.get(change.type, change.id);
    if (!record) return;
    const fields = Object.fromEntries(
      [...new Set([...OUTBOUND_FIELDS, ...watched])]
        .filter((f) => f in record.fields)
        .map((f) => [f, record.fields[f] ?? null]),
    );
    outbound.enqueue({ id: org.newId('04l'), objectType: change.type, fields });
  };
  const org = new OrgData(options.customFields, onChange, {
    contactsToMultipleAccounts: options.contactsToMultipleAccounts ?? true,
  });
  const kept = options.dataDir === undefined ? undefined : keepOrgIn(options.dataDir, orgId, org);
  const bulkQuery = new BulkQueryJobs(org, options.bulkQuery);
  const ingest = new BulkIngest(org, options.bulkIngest);
  for (const [type, names] of Object.entries(options.hiddenFields ?? {}))
    org.hideFields(type as SandboxObjectType, names ?? []);
  const segments = new SandboxSegments(org);

  const app = express();
  app.disable('x-powered-by');
  // Fields and their access change through the Metadata API without a record's change event.
  if (kept)
    app.use((req, res, next) => {
      if (req.method !== 'GET') res.once('finish', () => kept.changed());
      next();
    });
  app.get('/services/data', (_req, res) => {
    res.json(VERSIONS.map((v) => ({ label: `API ${v}`, url: `/services/data/v${v}`, version: v })));
  });
  app.post('/services/oauth2/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
    const answer = oauth.token((req.body ?? {}) as Record<string, string>, baseUrl);
    res.status(answer.status).json(answer.body);
  });
  app.get('/__sandbox/stats', (_req, res) => {
    res.json(stats());
  });
  app.use(segments.seedRoutes());
  // Lightning's record page, at the same path (a browser's page, so no access token).
  app.get('/lightning/r/:type/:id/view', (req, res) => {
    const asked = req.params.type;
    const type = (SANDBOX_OBJECT_TYPES as readonly string[]).includes(asked) ? (asked as SandboxObjectType) : undefined;
    const record = type ? org.get(type, req.params.id) : undefined;
    res.type('html');
    if (!type || !record)
      return res.status(404).send(missingRecordHtml('Salesforce', `${asked} with id ${req.params.id}`));
    const name = record.fields.Name ?? [record.fields.FirstName, record.fields.LastName].filter(Boolean).join(' ');
    res.send(recordPageHtml('Salesforce', `${type} ${record.fields.Id}${name ? `: ${name}` : ''}`, record.fields));
  });
  app.get('/id/:orgId/:userId', (req, res) => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!oauth.isValid(bearer))
      return res.status(401).json([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    res.json({
      id: `${baseUrl}/id/${orgId}/${USER_ID}`,
      organization_id: orgId,
      user_id: USER_ID,
      username: 'integration@sandbox.example',
    });
  });
  // OpenID Connect UserInfo, as Salesforce answers it for a valid access token: who and which org.
  app.get('/services/oauth2/userinfo', (req, res) => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!oauth.isValid(bearer)) return res.status(403).type('text/plain').send('Bad_OAuth_Token');
    res.json({
      sub: `${baseUrl}/id/${orgId}/${USER_ID}`,
      user_id: USER_ID,
      organization_id: orgId,
      preferred_username: 'integration@sandbox.example',
      nickname: 'integration',
      name: 'Integration User',
      email: 'integration@sandbox.example',
      email_verified: true,
      user_type: 'STANDARD',
      active: true,
      is_app_installed: true,
    });
  });
  app.use(
    '/services/data/:version',
    (req, res, next) => {
      const version = /^v(\d+\.\d)$/.exec(String(req.params.version))?.[1];
      if (!version || Number(version) < 31 || Number(version) > Number(VERSIONS.at(-1))) {
        return res.status(404).json([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
      }
      next();
    },
    express.json({ limit: '50mb' }),
    restRoutes({
      org,
      usage,
      isValidToken: (b) => oauth.isValid(b),
      queryPageSize: options.queryPageSize ?? 2000,
      viewSetup: options.viewSetup ?? true,
      longRunning,
      bulkQuery,
      ingest,
      segments,
    }),
  );

  app.use(
    '/services/Soap/m/:version',
    metadataRoutes({
      org,
      usage,
      isValidToken: (token) => oauth.isValid(token),
      assignedPermissionSets: options.assignedPermissionSets ?? [INTEGRATION_PERMISSION_SET],
      maxVersion: Number(VERSIONS.at(-1)),
    }),
  );

  function stats(): SalesforceSandboxStats {
    return {
      apiCalls: usage.used,
      byOperation: { ...usage.byOperation },
      queriesByFilter: { ...usage.queriesByFilter },
      dailyLimit: usage.dailyLimit,
      remaining: Math.max(0, usage.dailyLimit - usage.used),
      longRunningRefusals: longRunning.refused,
      tokensIssued: oauth.issued,
      outbound: { ...outbound.stats, pending: outbound.pending() },
      bulkIngest: ingest.stats(),
    };
  }

  // Salesforce accepts request lines up to 16 KB; Node's default header limit would refuse them first.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const accessToken = oauth.issueToken();
  oauth.issued = 0;

  const must = (result: { success: boolean; errors: { statusCode: string; message: string }[] }) => {
    if (!result.success) throw new Error(result.errors.map((e) => `${e.statusCode}: ${e.message}`).join('; '));
  };

  return {
    url: baseUrl,
    port,
    orgId,
    accessToken,
    setOutboundUrl: (url) => outbound.setUrl(url),
    issueToken: () => oauth.issueToken(),
    expireTokens: () => oauth.expireTokens(),
    setApiUsage: (used) => {
      usage.used = used;
    },
    refuseConcurrent: (n) => {
      usage.concurrentRefusals = n;
    },
    holdLongRunning: (n) => longRunning.hold(n),
    setAnswerDelay: (ms) => {
      longRunning.answerDelayMs = ms;
    },
    failQueryJobs: (n) => bulkQuery.failNext(n),
    stats,
    createRecord(type, fields, createOptions) {
      org.checkKnownFields(type, fields);
      quiet = createOptions?.notify === false;
      let result: SaveResult;
      try {
        result = org.create(type, fields);
      } finally {
        quiet = false;
      }
      must(result);
      return result.id ?? '';
    },
    updateRecord(type, id, fields) {
      org.checkKnownFields(type, fields);
      must(org.update(type, id, fields));
    },
    getRecord: (type, id) => {
      const record = org.get(type, id);
      return record ? { ...record.fields } : undefined;
    },
    records: (type) => org.all(type).map((r) => ({ ...r.fields, Id: r.id })),
    createListView: (spec) => segments.createListView(spec),
    createReport: (spec) => segments.createReport(spec),
    async close() {
      ingest.close();
      await outbound.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      kept?.flush();
    },
  };
}
