/**
 * What a CRM entry point is: an endpoint a CRM calls from inside itself (a workflow step, a record card,
 * a flow action) to have a record enriched on demand, or to show what became of it
 * (docs/crm-entry-points.md). Each connector implements its CRM's entry points in
 * `connectors/<crm>/entry-points/`; the composition root registers them, and the server mounts every
 * registered one the same way, in the shape of the webhook contract (connector.ts, WebhookHandler):
 *
 * 1. `verifyHead` refuses what the head alone can tell (a missing or wrong secret, a signature header
 *    that is missing or stale) before a byte of the body is read; the server then refuses a declared
 *    length over its limit;
 * 2. the server reads the body within the webhooks' body budget and deadline;
 * 3. `parse` checks the rest (a signature over the bytes, the body, the account the caller is in) and
 *    reads the request into a neutral `OnDemandRequest`;
 * 4. the server runs that request against the on-demand enrichment, which knows no CRM;
 * 5. `render` turns what it became into the CRM's answer.
 *
 * A refusal at any step is an EntryPointError, answered as `{"error":{"code","message","details"}}`.
 */
import type { z } from 'zod';
import type { CrmKind } from './connector.js';
import { AppError } from './errors.js';

/** What arrives before the body. */
export interface EntryPointHead {
  method: string;
  /** The full public URL the CRM called (PUBLIC_URL, the path and its query): what HubSpot signs. */
  url: string;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | undefined>;
  /** The values of the path's `:name` segments. */
  params: Record<string, string>;
  /** The query's parameters that were given once, each with its one value. */
  query: Record<string, string>;
}

export interface EntryPointRequest extends EntryPointHead {
  rawBody: Buffer;
}

/** A JSON answer. */
export interface EntryPointReply {
  status: number;
  body: unknown;
}

/** A refusal, with the status and code the caller is answered with; the message names the field. */
export class EntryPointError extends AppError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, 'permanent', details);
  }
}

/**
 * The body read as JSON and checked by `schema`: a 400 `invalid_json`, or a 400 `invalid_request` whose
 * message and `details.field` name the first field that is wrong.
 */
export function jsonBody<S extends z.ZodType>(request: EntryPointRequest, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new EntryPointError(400, 'invalid_json', 'body: not valid JSON', { field: 'body' });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  throw new EntryPointError(400, 'invalid_request', `${field}: ${issue.message}`, { field });
}

/** Who asked for the enrichment, as a job's reason: a workflow step, the record card, a flow. */
export type OnDemandTrigger = 'workflow' | 'card' | 'flow';

/** What became of a record that was asked for. */
export interface OnDemandOutcome {
  outcome: 'enriched' | 'no_match' | 'skipped' | 'failed';
  fieldsWritten: number;
  matched: boolean;
}

/** One record of a connection, its object type in any case of the connector's spelling. */
export interface OnDemandRecord {
  objectType: string;
  recordId: string;
}

/**
 * Enrich records and wait, up to `waitMs` for all of them, for their outcomes. A record of an object
 * with no active mapping is not queued: its outcome is `skipped`.
 */
export interface EnrichRequest {
  kind: 'enrich';
  connection: string;
  trigger: OnDemandTrigger;
  waitMs: number;
  records: (OnDemandRecord & {
    /**
     * The CRM's step that waits for this record (a HubSpot workflow step). A step runs once: a request
     * for a step seen before queues nothing and is answered as the first was (the same outcome, or
     * `pending` again), so a replayed or resent request never starts a second run. When the run is
     * still pending at the answer, the step is kept and completed once the run settles, with the output
     * fields of `CrmEntryPoints.blockedStepOutputs` (src/enrich/on-demand/workflow-callback-sender.ts).
     */
    callbackId?: string;
  })[];
}

/** The outcome of each record of an EnrichRequest, in order; `pending` when its run had not settled in time. */
export interface EnrichAnswer {
  results: (OnDemandOutcome | 'pending')[];
}

/** Queue one record and answer at once, with the run to wait for. */
export interface QueueRequest {
  kind: 'queue';
  connection: string;
  trigger: OnDemandTrigger;
  record: OnDemandRecord;
}

/** `mapped: false`: the object has no active mapping, and nothing was queued. */
export type QueueAnswer = { mapped: false } | { mapped: true; runId: string | null };

/** What crm-enrich holds about one record; `objectType` as the connector spells it. */
export interface ViewRequest {
  kind: 'view';
  connection: string;
  record: OnDemandRecord;
}

/** The parts of a record's enrichment state an entry point shows (the store's RecordState has them). */
export interface ViewedState {
  status: 'enriched' | 'no_match' | 'failed' | 'skipped';
  /** Property name to the value crm-enrich last wrote. */
  lastWritten: Record<string, string | null>;
  lastEnrichedAt: Date | null;
  lastError: string | null;
  companyId: string | null;
  companyReason: string | null;
}

/** The parts of an audit row an entry point shows (the store's AuditRow has them). */
export interface ViewedAuditRow {
  property: string | null;
  outcome: string | null;
  reason: string | null;
  jobId: string | null;
  /** Who asked for a run (e.g. `hubspot:card`); null on the rows of a run itself. */
  actor: string | null;
  at: Date;
}

export interface RecordView {
  /** Undefined when crm-enrich never looked at the record. */
  state: ViewedState | undefined;
  /** The record's newest audit rows, newest first. */
  audit: ViewedAuditRow[];
  /** What started each job of those rows, by job id, for the jobs the queue still keeps. */
  triggers: Map<string, string>;
}

export type OnDemandRequest = EnrichRequest | QueueRequest | ViewRequest;

/** What the on-demand enrichment answers to a request of each kind. */
export type OnDemandAnswer<R extends OnDemandRequest> = R extends EnrichRequest
  ? EnrichAnswer
  : R extends QueueRequest
    ? QueueAnswer
    : RecordView;

/**
 * One endpoint a CRM calls. `R` is the request `parse` reads, which may carry what `render` needs
 * besides the neutral fields (the record ids as the caller wrote them, say).
 */
export interface EntryPoint<R extends OnDemandRequest = OnDemandRequest> {
  readonly method: 'GET' | 'POST';
  /** The path, its variable segments written `:name` (they arrive in `params`). */
  readonly path: string;
  /**
   * Checks what the head alone can tell, before the body is read: the entry point is configured, the
   * caller's secret or signature headers are present, right or fresh. A refusal is final. Never throws.
   */
  verifyHead(head: EntryPointHead): EntryPointError | undefined;
  /** Checks everything else and reads the request; rejects with an EntryPointError. */
  parse(request: EntryPointRequest): Promise<R>;
  /** The answer, from the request and what became of it; rejects with an EntryPointError. */
  render(request: R, answer: OnDemandAnswer<R>): Promise<EntryPointReply>;
}

/** One CRM's entry points, as its connector gives them to the registry. */
export interface CrmEntryPoints {
  readonly crm: CrmKind;
  readonly entryPoints: readonly EntryPoint[];
  /**
   * The output fields a step kept blocked (EnrichRequest's `callbackId`) is completed with once its run
   * has settled: the same as the entry point answers when the run settles in time. Absent where the
   * CRM's steps are never kept.
   */
  readonly blockedStepOutputs?: (outcome: OnDemandOutcome) => Record<string, string | number | boolean>;
}

/**
 * Every CRM's entry points, built once by the composition root: the server mounts them, and the
 * workflow callback sender finds the output fields of a blocked step through it.
 */
export type EntryPointRegistry = readonly CrmEntryPoints[];
