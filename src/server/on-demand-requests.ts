/**
 * Runs what a CRM entry point asks for (src/core/entry-point.ts), the same for every CRM: records
 * enriched and waited on, a record queued, or what the store holds about a record. The outcome is read
 * back from the store, never from the lanes' memory (src/enrich/on-demand/on-demand.ts).
 */
import { mappedObject } from '../core/connector-lookup.js';
import type {
  EnrichAnswer,
  EnrichRequest,
  OnDemandAnswer,
  OnDemandRequest,
  QueueAnswer,
  QueueRequest,
  RecordView,
  ViewRequest,
} from '../core/entry-point.js';
import { queueName } from '../enrich/jobs.js';
import { enrichAndWait, requestEnrichment, type OnDemandDeps } from '../enrich/on-demand/on-demand.js';
import { runStep } from '../enrich/on-demand/workflow-step.js';
import { onDemandDeps, type EntryPointContext } from './entry-point-context.js';

/** The newest audit rows a record view holds. */
const VIEW_AUDIT_ROWS = 200;

export type OnDemandRunner = <R extends OnDemandRequest>(request: R) => Promise<OnDemandAnswer<R>>;

export function onDemandRunner(ctx: EntryPointContext): OnDemandRunner {
  const deps = onDemandDeps(ctx);
  const run = (request: OnDemandRequest): Promise<EnrichAnswer | QueueAnswer | RecordView> => {
    if (request.kind === 'enrich') return enrich(ctx, deps, request);
    if (request.kind === 'queue') return queue(ctx, deps, request);
    return view(ctx, request);
  };
  // The answer's kind follows the request's, as the three functions above are typed.
  return run as OnDemandRunner;
}

async function enrich(ctx: EntryPointContext, base: OnDemandDeps, request: EnrichRequest): Promise<EnrichAnswer> {
  const { connection, trigger, records } = request;
  const deadline = Date.now() + request.waitMs;
  // Each record is looked up on its own: with many records, looked at less often (200 records: every second).
  const deps = { ...base, pollMs: Math.max(150, records.length * 5) };
  const results = await Promise.all(
    records.map(async ({ objectType, recordId, callbackId }) => {
      const mapped = mappedObject(ctx.connectors, ctx.mappings, { connection }, objectType);
      if (!mapped) return { outcome: 'skipped' as const, fieldsWritten: 0, matched: false };
      const asked = { connection, objectType: mapped.objectType, recordId, trigger };
      const timeoutMs = Math.max(0, deadline - Date.now());
      // A step runs once however often the CRM sends it; kept before the answer, since once the CRM is
      // told the step waits, only its row remembers to complete it.
      if (callbackId !== undefined)
        return runStep(deps, ctx.store.workflowCallbacks, { ...asked, callbackId, timeoutMs });
      const { result } = await enrichAndWait(deps, { ...asked, timeoutMs });
      return result;
    }),
  );
  return { results };
}

async function queue(ctx: EntryPointContext, deps: OnDemandDeps, request: QueueRequest): Promise<QueueAnswer> {
  const { connection, trigger, record } = request;
  const mapped = mappedObject(ctx.connectors, ctx.mappings, { connection }, record.objectType);
  if (!mapped) return { mapped: false };
  const ticket = await requestEnrichment(deps, {
    connection,
    objectType: mapped.objectType,
    recordId: record.recordId,
    trigger,
  });
  return { mapped: true, runId: ticket.jobId };
}

async function view(ctx: EntryPointContext, { connection, record }: ViewRequest): Promise<RecordView> {
  const key = { connection, objectType: record.objectType, recordId: record.recordId };
  const { state, audit } = await ctx.store.recordView(key, VIEW_AUDIT_ROWS);
  const jobIds = [...new Set(audit.map((r) => r.jobId).filter((j): j is string => j !== null))];
  const jobs = await ctx.store.queue.lookup(queueName(connection, record.objectType), jobIds);
  const triggers = new Map([...jobs].flatMap(([id, j]) => (j.reason ? [[id, j.reason] as const] : [])));
  return { state, audit, triggers };
}
