/**
 * "Enrich with crm-enrich" as a Salesforce Flow action: `POST /salesforce/actions/enrich`, called by
 * the invocable Apex action through the Named Credential CrmEnrich, signed with SALESFORCE_ACTION_SECRET
 * (action-signature.ts). Each record is
 * queued like any other; the answer says per record what became of it, or `pending` when its run did
 * not settle within SALESFORCE_ACTION_WAIT_MS (it still runs, and the record's page shows it later).
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
import { toId18 } from '../ids.js';
import { actionHeadRefusal, checkActionSignature } from './action-signature.js';
import { ReplayGuard } from './replay-guard.js';

export const FLOW_ACTION_MAX_RECORDS = 200;

const ActionRequest = z.object({
  organizationId: z
    .string({ error: 'required: the org id ({!$Organization.Id})' })
    .regex(/^00D[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'expected a 15- or 18-character org id starting 00D'),
  records: z
    .array(
      z.object({
        type: z.enum(['Lead', 'Contact', 'Account'], { error: 'expected Lead, Contact or Account' }),
        id: z
          .string({ error: 'required' })
          .refine((v) => toId18(v) !== undefined, 'expected a 15- or 18-character Salesforce record id'),
      }),
      { error: 'required: a list of {type, id}' },
    )
    .min(1, 'expected at least one record')
    .max(FLOW_ACTION_MAX_RECORDS, `expected at most ${FLOW_ACTION_MAX_RECORDS} records per call`),
});

/** The request, and the record ids as the flow wrote them: the answer names each record by its own. */
type FlowRequest = EnrichRequest & { ids: string[] };

export interface FlowActionOptions {
  /** The Salesforce connection; undefined when Salesforce is not configured (every call is then refused). */
  connector: CrmConnector | undefined;
  /** SALESFORCE_ACTION_SECRET, which the External Credential signs with. */
  secret: string | undefined;
  /** SALESFORCE_ACTION_WAIT_MS: how long the answer waits for the records' runs. */
  waitMs: number;
}

export function flowAction(options: FlowActionOptions): EntryPoint<FlowRequest> {
  const seen = new ReplayGuard();
  return {
    method: 'POST',
    path: '/salesforce/actions/enrich',

    verifyHead: (head) => actionHeadRefusal(head, options.secret),

    async parse(request) {
      checkActionSignature(request, options.secret, seen);
      const { organizationId, records } = jsonBody(request, ActionRequest);
      const connector = options.connector;
      if (!connector)
        throw new EntryPointError(503, 'not_configured', 'Salesforce is not connected: set its credentials.');
      const org = connector.accountId?.();
      if (!org || org.slice(0, 15) !== organizationId.slice(0, 15)) {
        throw new EntryPointError(
          403,
          'wrong_org',
          'organizationId: not the connected Salesforce org (SALESFORCE_ORG_ID); nothing was done.',
          { field: 'organizationId' },
        );
      }
      return {
        kind: 'enrich',
        connection: connector.connection,
        trigger: 'flow',
        waitMs: options.waitMs,
        records: records.map((r) => ({ objectType: r.type, recordId: toId18(r.id)! })),
        ids: records.map((r) => r.id),
      };
    },

    async render({ ids }, { results }) {
      const view = (id: string, result: OnDemandOutcome | 'pending') =>
        result === 'pending'
          ? { id, outcome: 'pending', fieldsWritten: 0 }
          : { id, outcome: result.outcome, fieldsWritten: result.fieldsWritten };
      return { status: 200, body: { results: results.map((result, i) => view(ids[i]!, result)) } };
    },
  };
}
