/**
 * A CRM workflow step (a HubSpot custom workflow action, named by its callbackId) runs once, however
 * often it is asked for. HubSpot sends a step again when our answer did not reach it (it retries failed
 * requests for up to three days), and a v2-signed request has no timestamp, so a captured one stays
 * valid. The first request for a step makes its row (src/store/workflow-callbacks.ts) and queues the
 * run; a later one queues nothing: it gets the answer the step was given, or, while the first still
 * waits, waits on the same run.
 */
import type { OnDemandOutcome } from '../../core/entry-point.js';
import type { ClaimedStep } from '../../store/workflow-callbacks.js';
import {
  latestAuditId,
  queueRun,
  waitForOutcome,
  type OnDemandDeps,
  type OnDemandRequest,
  type Ticket,
} from './on-demand.js';

/** The steps as kept by the store. */
export interface StepPort {
  claim(entry: OnDemandRequest & { callbackId: string; sinceAuditId: number }): Promise<ClaimedStep>;
  setJob(callbackId: string, jobId: string): Promise<void>;
  conclude(callbackId: string, result: OnDemandOutcome | 'pending'): Promise<OnDemandOutcome | 'pending'>;
}

export interface StepRequest extends OnDemandRequest {
  callbackId: string;
  timeoutMs: number;
}

/**
 * The step's answer: its run's outcome if it settles within `timeoutMs`, else `pending` (kept, to be
 * completed through the CRM's callback once it settles); the same answer for every request of the step.
 */
export async function runStep(
  deps: OnDemandDeps,
  steps: StepPort,
  request: StepRequest,
): Promise<OnDemandOutcome | 'pending'> {
  const { connection, objectType, recordId, callbackId } = request;
  const key = { connection, objectType, recordId };
  const step = await steps.claim({ ...request, sinceAuditId: await latestAuditId(deps, key) });
  if (step.answer !== undefined) return step.answer;
  const ticket: Ticket = { ...key, sinceAuditId: step.sinceAuditId, jobId: step.jobId };
  if (ticket.jobId === null) {
    // The first request, or one sent again after the first stopped before its job was kept: the key
    // lets the queue take the run once either way.
    const jobId = await queueRun(deps, request, `workflow-step:${connection}:${callbackId}`);
    if (jobId !== null) {
      await steps.setJob(callbackId, jobId);
      ticket.jobId = jobId;
    }
  }
  const result = await waitForOutcome(deps, ticket, request.timeoutMs);
  return steps.conclude(callbackId, result);
}
