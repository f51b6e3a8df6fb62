/**
 * HubSpot's entry points, as the registry takes them (src/core/entry-point.ts): the workflow action and
 * the record card's two calls, and the output fields a workflow step kept blocked is completed with.
 */
import type { CrmConnector } from '../../../src/core/connector.js';
import type { CrmEntryPoints } from '../../../src/core/entry-point.js';
import { cardEnrichNow, recordCard } from './record-card.js';
import { actionOutputs, workflowAction } from './workflow-action.js';

export interface HubspotEntryPointsOptions {
  /** The HubSpot connection; undefined when HubSpot is not configured (every call is then refused). */
  connector: CrmConnector | undefined;
  /** HUBSPOT_CLIENT_SECRET: the app's client secret, which signs every call. */
  clientSecret: string | undefined;
  /** HUBSPOT_ACTION_WAIT_MS. */
  actionWaitMs: number;
}

export function hubspotEntryPoints({
  connector,
  clientSecret,
  actionWaitMs,
}: HubspotEntryPointsOptions): CrmEntryPoints {
  return {
    crm: 'hubspot',
    entryPoints: [
      workflowAction({ connector, clientSecret, waitMs: actionWaitMs }),
      recordCard({ connector, clientSecret }),
      cardEnrichNow({ connector, clientSecret }),
    ],
    blockedStepOutputs: actionOutputs,
  };
}
