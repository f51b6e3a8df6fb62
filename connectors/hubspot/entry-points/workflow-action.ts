/**
 * "Enrich with crm-enrich" as a HubSpot workflow step: `POST /hubspot/actions/enrich`, HubSpot's
 * custom workflow action execution request, signed with the app's client secret: v3 when HubSpot sends
 * it, else v2, the signature HubSpot's custom action guide says these requests carry. The record is
 * queued like any other and its outcome answered as output fields later steps branch on. A run that
 * does not settle within HUBSPOT_ACTION_WAIT_MS answers BLOCK; the step is then completed through
 * HubSpot's callback endpoint (src/enrich/on-demand/workflow-callback-sender.ts) once it settles.
 *
 * A v2 signature has no timestamp, so a captured request stays valid for ever, and HubSpot itself sends
 * a step again when our answer does not reach it (it retries failed webhook requests for up to three
 * days). The step's `callbackId` therefore runs once: a request for a callbackId seen before queues
 * nothing and is answered as the first was (src/enrich/on-demand/workflow-step.ts).
 */
import { z } from 'zod';
import type { CrmConnector } from '../../../src/core/connector.js';
import {
  EntryPointError,
  jsonBody,
  type EnrichRequest,
  type EntryPoint,
  type OnDemandOutcome,
} from '../../../src/core/entry-point.js';
import { connectedHubspot } from './connected.js';
import { checkSignature, signatureHeadRefusal } from './signed-request.js';

/** Besides v3: what HubSpot's custom workflow action guide says execution requests are signed with. */
const ACTION_SIGNATURES = ['v2'] as const;

const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)]).transform(String);

/** The parts of HubSpot's execution request used here; HubSpot sends more (context, inputFields). */
const ExecutionRequest = z.object({
  callbackId: z.string({ error: 'required' }).min(1).max(200),
  origin: z.looseObject({ portalId: id }),
  object: z.looseObject({ objectId: id, objectType: z.string({ error: 'required' }).min(1).max(40) }),
});

/** HubSpot's names for the objects the action is offered on. */
const OBJECT_TYPES: Record<string, string | undefined> = {
  CONTACT: 'contact',
  COMPANY: 'company',
  '0-1': 'contact',
  '0-2': 'company',
};

/** The output fields HubSpot keeps for later workflow steps. */
export function actionOutputs(result: OnDemandOutcome): Record<string, string | number | boolean> {
  return { outcome: result.outcome, fields_written: result.fieldsWritten, matched: result.matched };
}

export interface WorkflowActionOptions {
  /** The HubSpot connection; undefined when HubSpot is not configured (every call is then refused). */
  connector: CrmConnector | undefined;
  clientSecret: string | undefined;
  /** HUBSPOT_ACTION_WAIT_MS: how long the answer waits for the run before it answers BLOCK. */
  waitMs: number;
}

export function workflowAction(options: WorkflowActionOptions): EntryPoint<EnrichRequest> {
  return {
    method: 'POST',
    path: '/hubspot/actions/enrich',
    verifyHead: (head) => signatureHeadRefusal(head, options.clientSecret, ACTION_SIGNATURES),

    async parse(request) {
      checkSignature(request, options.clientSecret, ACTION_SIGNATURES);
      const { callbackId, origin, object } = jsonBody(request, ExecutionRequest);
      const connector = connectedHubspot(options.connector);
      const portal = connector.accountId?.();
      if (portal !== undefined && portal !== origin.portalId) {
        const message =
          'origin.portalId: the request comes from another HubSpot portal than the connected ' +
          `one (${portal}); nothing was done.`;
        throw new EntryPointError(403, 'wrong_portal', message, { field: 'origin.portalId' });
      }
      // An object HubSpot names otherwise is passed on as named: no mapping has it, so the step is
      // answered `skipped` and the workflow goes on.
      const objectType = OBJECT_TYPES[object.objectType.toUpperCase()] ?? object.objectType;
      // The callbackId names the step: the same step sent again is answered from its first run.
      return {
        kind: 'enrich',
        connection: connector.connection,
        trigger: 'workflow',
        waitMs: options.waitMs,
        records: [{ objectType, recordId: object.objectId, callbackId }],
      };
    },

    async render(_request, { results }) {
      const result = results[0]!;
      // A pending run's step was kept before this answer: once HubSpot has BLOCK, only that row remembers it.
      const outputFields = result === 'pending' ? { hs_execution_state: 'BLOCK' } : actionOutputs(result);
      return { status: 200, body: { outputFields } };
    },
  };
}
