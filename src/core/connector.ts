/**
 * The one interface every CRM connector implements. The enrichment core, the server and the CLI
 * only ever see these types; nothing outside `connectors/<crm>/` names a CRM's SDK.
 */
import type { EventFeed } from './event-feed.js';
import { AppError, type ErrorKind } from './errors.js';
import type { Priority } from './limiter.js';

export const CRM_KINDS = ['hubspot', 'salesforce'] as const;
export type CrmKind = (typeof CRM_KINDS)[number];

/** A CRM record as the core sees it: property name to string value (null or absent when empty). */
export interface CrmRecord {
  id: string;
  properties: Record<string, string | null>;
  /** ISO timestamps when the CRM reports them. */
  createdAt?: string;
  updatedAt?: string;
}

export interface RecordUpdate {
  id: string;
  /** Values as the CRM expects them: strings; an empty string clears a value. */
  properties: Record<string, string>;
}

export interface WriteResult {
  id: string;
  ok: boolean;
  /** Present when ok is false. `retryable` says whether writing the same record again may succeed. */
  error?: { code: string; message: string; retryable: boolean; fields?: string[] };
}

/**
 * What creating one record did; `existingId` names the record
 * the CRM says already holds its unique key (HubSpot e-mail).
 */
export interface CreateResult extends WriteResult {
  existingId?: string;
}

/** One condition of `findRecords`: the property holds one of `values`, or any value when absent. */
export interface RecordCondition {
  property: string;
  values?: string[];
}

/** The value types the core reasons about, normalised across CRMs. */
export type PropertyType =
  'string' | 'text' | 'number' | 'date' | 'datetime' | 'enumeration' | 'bool' | 'phone' | 'email' | 'url';

export interface CrmProperty {
  name: string;
  label: string;
  type: PropertyType;
  /** Whether an integration may write it (HubSpot: not read-only/calculated; Salesforce: updateable). */
  writable: boolean;
  /** Allowed values for an enumeration / picklist. */
  options?: string[];
  /** Maximum string length, where the CRM enforces one. */
  maxLength?: number;
  /** Created by an admin or by us rather than shipped with the CRM. */
  custom: boolean;
  /** The CRM's own type names, for messages. */
  crmType?: string;
}

/** A property the active mapping needs; `ensureProperties` creates it where the CRM allows. */
export interface PropertySpec {
  name: string;
  label: string;
  type: PropertyType;
  options?: string[];
  maxLength?: number;
  description?: string;
}

export interface ProvisionResult {
  created: string[];
  existing: string[];
  /** Properties the CRM cannot create over its API; an admin must add them (message says how). */
  missing: { spec: PropertySpec; instruction: string }[];
}

export interface RecordPage {
  records: CrmRecord[];
  /** Opaque cursor for the next page; absent on the last page. */
  next?: string;
}

/**
 * Per-call hints of a bulk read: `pageSize` records at most per page (the connector may cap it); `limit`
 * records at most in the whole read, told when it starts (the export then holds no more); `signal` stops
 * waiting for an export still being made, with the signal's reason (the export is dropped).
 */
export interface BulkReadOptions extends CallOptions {
  pageSize?: number;
  limit?: number;
  signal?: AbortSignal;
}

export interface ListOptions {
  properties: string[];
  /** Only records created or modified at or after this time. */
  changedSince?: Date;
  cursor?: string;
  /** Page size; the connector may cap it. */
  limit?: number;
  /**
   * Conditions every record listed must meet, where the CRM's query can say so (Salesforce: a SOQL WHERE);
   * fewer records read is all it buys. A connector whose listing cannot filter (HubSpot's list pages)
   * lists everything, and so does one that cannot express a condition: callers filter each page again.
   */
  where?: ListCondition[];
}

/** A record's own property compared with a value (`empty`/`present` take none); text compares without case. */
export interface ListCondition {
  property: string;
  op: '=' | '!=' | '<' | '<=' | '>' | '>=' | 'empty' | 'present';
  value?: string;
}

/**
 * `rejected`: one item of a delivery that could not be read (a bad id, a bad date) while the rest
 * could. It is stored and parked in the dead letter with its reason, so the delivery can be
 * acknowledged without losing the others or hiding this one.
 */
export type RecordEventKind =
  'created' | 'changed' | 'deleted' | 'privacy_deletion' | 'merged' | 'requested' | 'rejected';

/**
 * Who made a change, in words every connector translates its CRM's vocabulary into:
 * - `person`: someone in the CRM's own app (its UI, a mobile app, a form they filled in): they wait for it;
 * - `app`: another app or script through the API (a website form, a sales tool, a sync): one record at a
 *   time is a person's tool, many at a high rate are bulk work, so the intake judges it by behaviour;
 * - `bulk`: work the CRM itself calls bulk (an import, a bulk action in its UI, a migration);
 * - `this_service`: made with crm-enrich's own credentials: its own writes and creations, or a script that
 *   reuses its token (the intake tells them apart by what the service recorded doing).
 */
export type ChangeActor = 'person' | 'app' | 'bulk' | 'this_service';

/** One thing that happened to one CRM record, parsed from a webhook or produced by a sweep. */
export interface RecordEvent {
  crm: CrmKind;
  /** Connection name (one per portal/org); `default` unless several are configured. */
  connection: string;
  /** The CRM's object name: `contact`/`company` (HubSpot), `Lead`/`Contact`/`Account` (Salesforce). */
  objectType: string;
  recordId: string;
  kind: RecordEventKind;
  /** Stable key: the same CRM event delivered twice has the same key. */
  dedupKey: string;
  occurredAt: string;
  /** For `changed`: which properties changed (and their new values where the CRM says). */
  changedProperties?: Record<string, string | null>;
  /** For `merged`: the ids that no longer exist; recordId is the surviving one. */
  mergedIds?: string[];
  /** Field values the trigger carried (Salesforce outbound messages carry the sObject's fields). */
  values?: Record<string, string | null>;
  /** Who made the change, as the CRM tells it (see ChangeActor); absent where it does not say. */
  actor?: ChangeActor;
  /**
   * Which app, tool or user made it, as the CRM names it (HubSpot: the app id of an API change): the
   * intake counts each actor's rate on its own, so one app's import never makes another's form bulk.
   */
  actorId?: string;
  /** For `rejected`: what was wrong with the item, naming the field and never quoting its value. */
  rejection?: string;
}

/** What arrives before the body: the request line, the headers and the path parameters. */
export interface WebhookHead {
  method: string;
  /** The full public URL the CRM called (scheme, host, path, query). */
  url: string;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | undefined>;
  /** Path parameters, e.g. the shared secret of a Salesforce endpoint. */
  params?: Record<string, string>;
}

export interface WebhookRequest extends WebhookHead {
  rawBody: Buffer;
}

export interface HttpReply {
  status: number;
  contentType: string;
  body: string;
}

export class WebhookError extends AppError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super(code, message, 'permanent');
  }
}

export type WebhookParseResult = { ok: true; events: RecordEvent[] } | { ok: false; error: WebhookError };

/**
 * Verifies and parses one inbound request; replies are built by the same handler so each CRM gets its own wire format.
 */
export interface WebhookHandler {
  /**
   * Checks what the head alone can tell, before any byte of the body is read: the endpoint is
   * configured, the signature headers are present and fresh, the path secret is right, the declared
   * Content-Length is within the handler's limit. A refusal here is final: the sender is answered
   * with it and the body is never read. Passing says nothing about the body; `parse` still checks
   * everything (the signature over the bytes included). Cheap, synchronous, never throws.
   */
  verifyHead(head: WebhookHead): WebhookError | undefined;
  parse(request: WebhookRequest): WebhookParseResult;
  /** The answer once the events are durably stored. */
  ackReply(events: RecordEvent[]): HttpReply;
  /** The answer to a refused request, or to one we could not store (status >= 500 makes the CRM redeliver). */
  errorReply(error: WebhookError): HttpReply;
}

export interface ConnectorStats {
  calls: number;
  /** Calls by endpoint or operation, for metrics. */
  byOperation: Record<string, number>;
  /** The CRM's call limits as far as the connector knows them (the admin page draws calls against them). */
  limits?: CallLimit[];
}

/** At most `max` calls in any `windowSeconds`. */
export interface CallLimit {
  max: number;
  windowSeconds: number;
}

/**
 * Per-call hints. Where the CRM's API allocation is shared with other integrations (Salesforce), bulk
 * work stops at a reserve that interactive work may dip below. Connectors treat a missing priority as bulk.
 */
export interface CallOptions {
  priority?: Priority;
}

/** The company record a domain found: the oldest, and any newer ones that share the domain (reported, never merged). */
export interface CompanyMatch {
  id: string;
  others: string[];
}

/**
 * What a company other than by its domain is found by: the partner's company id (in `partnerIdProperty`) or its name.
 */
export interface CompanyKeys {
  partnerIdProperty?: string;
  partnerIds: string[];
  names: string[];
}

/** A company record as `findCompaniesByKeys` found it. */
export interface FoundCompany {
  id: string;
  partnerId: string | null;
  name: string | null;
}

/** The properties that make a record's name, and the one shown beside it (an e-mail, a website). */
export interface RecordLabels {
  name: readonly string[];
  detail: string;
}

/** A company record to create for an employer; `properties` beside the domain and name (e.g. mapped values). */
export interface NewCompany {
  domain: string;
  name: string;
  properties?: Record<string, string>;
}

/** A person record to link with its employer's company record. */
export interface CompanyLink {
  recordId: string;
  companyId: string;
  /** The record's primary company as read with it (HubSpot `associatedcompanyid`); unset when it has none. */
  currentPrimary?: string;
}

/**
 * What linking did: `linked_primary` (the employer became the primary company), `linked` (linked, the
 * record keeps the primary company it had), `already_linked` (nothing to do), `failed` (with `error`).
 */
export interface CompanyLinkResult {
  recordId: string;
  companyId: string;
  outcome: 'linked_primary' | 'linked' | 'already_linked' | 'failed';
  error?: string;
}

/** A person record's job change, as the connector's job-change actions need it. */
export interface JobChangeAct {
  recordId: string;
  from: { name: string | null; domain: string | null };
  to: { name: string | null; domain: string | null };
  oldTitle: string | null;
  newTitle: string | null;
  detectedAt: Date;
  /** For `employer`: the company the record was linked with (HubSpot's primary company, Salesforce's AccountId). */
  previousCompanyId?: string | null;
  /** For `employer`: the new employer's company record, found or created once per domain; null when none could be. */
  newCompanyId?: string | null;
  /** Why there is no `newCompanyId` (creation off, the partner names no domain, ...). */
  newCompanyReason?: string;
  /** For `newContact`: the person at the new employer, as the partner knows them (a work e-mail there). */
  newContact?: { email: string; firstName: string | null; lastName: string | null } | null;
}

/** Which job-change actions to carry out (the actions file's entry for the connection). */
export interface JobChangeActionSwitches {
  properties: boolean;
  task: boolean;
  employer?: boolean;
  newContact?: boolean;
}

export interface CrmConnector {
  readonly crm: CrmKind;
  readonly connection: string;
  /** Largest number of records one read or one write call may carry (HubSpot 100, Salesforce 200). */
  readonly batchSize: number;
  /**
   * How many writes at this priority the lane gathers for one `writeRecords` call, where that is more
   * than `batchSize` (Salesforce: bulk writes of 2,000 and more go through one Bulk API 2.0 ingest job
   * rather than ten collections calls). Absent: `batchSize`.
   */
  writeBatchSize?(priority: Priority): number;
  /** Object types this connector serves. */
  readonly objectTypes: readonly string[];

  /**
   * How long a change may take to show in `listRecords(changedSince)` (HubSpot's search index lags behind
   * writes); a sweep's next watermark goes back this far so nothing changed just before it is missed.
   */
  readonly listingLagMs?: number;
  /** Records by id; ids that do not exist are left out of the answer. Chunked internally. */
  readRecords(objectType: string, ids: string[], properties: string[], options?: CallOptions): Promise<CrmRecord[]>;
  /** Writes in batches of at most `batchSize` (or one bulk job); one result per update, in order. */
  writeRecords(objectType: string, updates: RecordUpdate[], options?: CallOptions): Promise<WriteResult[]>;
  /** Pages through records, optionally only those changed since a time (backfill, catch-up sweep). */
  listRecords(objectType: string, options: ListOptions, callOptions?: CallOptions): Promise<RecordPage>;
  /**
   * Every record of an object through the CRM's bulk export (Salesforce: a Bulk API 2.0 query job), a page
   * at a time, in no particular order: without a cursor the export starts; `next` goes on with the same
   * export, in this process or another, until the last page. A few calls per export and one per page of up
   * to `pageSize` records, where listRecords spends one per page of at most 2,000.
   */
  bulkRead?(
    objectType: string,
    properties: string[],
    cursor: string | undefined,
    options?: BulkReadOptions,
  ): Promise<RecordPage>;
  /** How many records of the object the CRM holds, in one call. */
  countRecords?(objectType: string, options?: CallOptions): Promise<number>;
  /**
   * Reads of a whole object of more records than this go through bulkRead, fewer through listRecords
   * (Salesforce: SALESFORCE_BULK_THRESHOLD). Absent with no bulkRead.
   */
  readonly bulkReadThreshold?: number;
  /**
   * Reads what the connection needs to know about its account before work starts (HubSpot: the
   * portal id its webhooks must carry). Never throws: what cannot be read is logged and done without.
   */
  prepare?(): Promise<void>;
  readSchema(objectType: string): Promise<CrmProperty[]>;
  /** Creates what the CRM allows, reports the rest; never called without a person asking. */
  ensureProperties(objectType: string, wanted: PropertySpec[]): Promise<ProvisionResult>;
  /** The object companies live in (HubSpot `company`), when the connector can find them by domain. */
  readonly companyObjectType?: string;
  /**
   * Company records by website domain, in as few calls as the CRM
   * allows: domain (normalised) -> the oldest record and the rest.
   */
  findCompaniesByDomain?(domains: string[], options?: CallOptions): Promise<Map<string, CompanyMatch>>;
  /**
   * Companies whose partner-id property holds one of `partnerIds`, or whose name is one of `names`
   * (exactly, case aside), in as few calls as the CRM allows; oldest first.
   */
  findCompaniesByKeys?(keys: CompanyKeys, options?: CallOptions): Promise<FoundCompany[]>;
  /**
   * Both searches in one, where the CRM can ask for several keys in one call (HubSpot: one filter group
   * each): the domains' companies as findCompaniesByDomain gives them, and the companies holding one
   * of the partner ids or names as findCompaniesByKeys does. CRM searches are scarce (HubSpot: about
   * five a second, besides the ten-second budget), and a new employer needs both.
   */
  findCompanies?(
    query: { domains: string[] } & CompanyKeys,
    options?: CallOptions,
  ): Promise<{ byDomain: Map<string, CompanyMatch>; byKeys: FoundCompany[] }>;
  /** Creates company records in as few calls as the CRM allows; one result per input, in order. */
  createCompanies?(companies: NewCompany[], options?: CallOptions): Promise<WriteResult[]>;
  /**
   * By person object type, the property that names its company, read with the record: HubSpot's
   * contact `associatedcompanyid` (the primary company), Salesforce's Contact `AccountId`. An object
   * type not listed is not linked (a Salesforce Lead has no Account).
   */
  readonly companyLinkProperties?: Readonly<Record<string, string>>;
  /**
   * true where the link is that property itself (Salesforce AccountId): it is written with the
   * enrichment, in the same update, and only where it is empty. Otherwise `linkToCompanies` links.
   */
  readonly companyLinkInWrite?: boolean;
  /**
   * Links person records with their employers' company records in as few calls as the CRM allows,
   * making the link primary only where the record has no primary company yet. Never removes or
   * replaces a link a person made. One result per link, in order.
   */
  linkToCompanies?(objectType: string, links: CompanyLink[], options?: CallOptions): Promise<CompanyLinkResult[]>;

  /**
   * Carries out the actions a person record's job change sets off, each only when switched on:
   * `properties` writes when the person moved, the previous employer and the previous title on the
   * record (the properties `jobChangeProperties` names; never the record's e-mail); `task` creates one
   * task for the record's owner, "<name> moved from <old> to <new> as <title>", linked with the record;
   * `employer` makes `newCompanyId` the record's company and keeps `previousCompanyId` linked as a former
   * employer; `newContact` creates `newContact` at the new employer unless a record has its e-mail.
   * Answers what became of each action asked for, by name: `done`, `skipped: <why>` or `failed: <why>`
   * (one failing does not stop the others). Where the CRM has no such action the connector leaves this out.
   */
  applyJobChange?(
    objectType: string,
    change: JobChangeAct,
    actions: JobChangeActionSwitches,
    options?: CallOptions,
  ): Promise<Record<string, string>>;
  /** By person object type, the properties `applyJobChange` writes, provisioned like mapped custom properties. */
  readonly jobChangeProperties?: Readonly<Record<string, readonly PropertySpec[]>>;
  /**
   * Creates what the `employer` action needs besides properties (HubSpot: the "Former employee"
   * contact-to-company association label); answers one line per thing, created or already there.
   * Never called without a person asking (`crm-enrich mappings provision`).
   */
  provisionJobChangeSchema?(): Promise<string[]>;

  /**
   * Records holding one of `values` in a property (compared without case), or any value when `values`
   * is absent; the conditions are alternatives. In as few calls as the CRM allows (discovery checks a
   * page of candidates in one or two calls before it spends a credit on any).
   */
  findRecords?(
    objectType: string,
    where: RecordCondition[],
    properties: string[],
    options?: CallOptions,
  ): Promise<CrmRecord[]>;
  /**
   * Records that meet a condition written in the CRM's own query language (Salesforce: a SOQL WHERE
   * condition an admin wrote for a job-change sweep), every page of them, with `properties`. Only
   * admin input reaches it: the condition is the CRM's to check, and a bad one is its `validation` error.
   */
  findRecordsWhere?(
    objectType: string,
    condition: string,
    properties: string[],
    options?: CallOptions,
  ): Promise<CrmRecord[]>;
  /**
   * The ids of the `objectType` records in one of the CRM's lists, every page: a HubSpot list (its id), a
   * Salesforce list view (00B...) or report (00O...). `not_found` for an unknown list; `validation` for one
   * the CRM cannot hand over whole (a report of more rows than it answers) or one that holds no such records.
   */
  listMembers?(objectType: string, listId: string, options?: CallOptions): Promise<string[]>;
  /**
   * The id of the list of `objectType` records a person calls `name` (HubSpot: the list's name, without case;
   * Salesforce: a list view's API name or label), for `listMembers`; undefined when there is none.
   */
  findList?(objectType: string, name: string, options?: CallOptions): Promise<string | undefined>;
  /** Creates records in as few calls as the CRM allows; one result per input, in order. */
  createRecords?(objectType: string, records: Record<string, string>[], options?: CallOptions): Promise<CreateResult[]>;

  /**
   * Up to `limit` records an admin is looking for by a piece of text: an e-mail address, a name, a
   * company's name or website; the CRM's own search decides what matches. Interactive: a person waits.
   */
  searchRecords?(objectType: string, text: string, properties: string[], limit: number): Promise<CrmRecord[]>;
  /** By object type, what a person recognises a record by where an admin searches for one. */
  readonly recordLabels?: Readonly<Record<string, RecordLabels>>;
  /** Whether text has the shape of one of the CRM's record ids: an admin's search looks it up as an id first. */
  isRecordId?(text: string): boolean;
  /** Where a person opens the record in the CRM's own app; undefined while the account is not known yet. */
  recordUrl?(objectType: string, recordId: string): Promise<string | undefined>;

  /**
   * The connected account as the CRM names it in what it sends (HubSpot's portal id, Salesforce's org
   * id); undefined while it is not known yet. Requests from any other account are refused.
   */
  accountId?(): string | undefined;
  /**
   * Asks the CRM which account the connection's credentials are in (HubSpot: the portal id of GET
   * /account-info/v3/details; Salesforce: the org id of the OAuth UserInfo endpoint). Read at start-up:
   * every row of the connection's state names it. Throws a CrmError when the CRM does not say.
   */
  readAccount(): Promise<string>;
  /**
   * Completes a workflow step that answered "blocked" (HubSpot's custom workflow actions), with the
   * values later steps branch on. Throws a CrmError when the CRM refuses or cannot be reached.
   */
  completeWorkflowAction?(callbackId: string, outputFields: Record<string, string | number | boolean>): Promise<void>;

  readonly webhook: WebhookHandler;
  /**
   * The CRM's record of its events, read from a stored position (HubSpot's webhooks journal), when the
   * connection is configured to read one; its events go through the same intake as the webhook's.
   */
  readonly eventFeed?: EventFeed;
  stats(): ConnectorStats;
  close(): Promise<void>;
}

export type CrmErrorCode =
  | 'rate_limited' // short-window limit: wait retryAfterMs, then go on
  | 'daily_limit' // the day's allocation is spent: stop bulk work until resetAt
  | 'auth' // credentials rejected
  | 'validation' // the request was wrong; do not retry it as it is
  | 'not_found'
  | 'unavailable' // 5xx, timeouts, connection errors
  | 'invalid_response'; // the CRM answered in a shape we do not understand; not retried

/** Thrown by connectors. `kind` follows AppError: transient errors are retried, `config` stops and reports. */
export class CrmError extends AppError {
  constructor(
    readonly crm: CrmKind,
    code: CrmErrorCode,
    message: string,
    readonly retryAfterMs?: number,
    readonly resetAt?: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, crmErrorKind(code), details);
  }
}

function crmErrorKind(code: CrmErrorCode): ErrorKind {
  if (code === 'rate_limited' || code === 'unavailable') return 'transient';
  if (code === 'auth' || code === 'daily_limit') return 'config';
  return 'permanent';
}
