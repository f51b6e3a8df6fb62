/** Salesforce's entry points, as the registry takes them (src/core/entry-point.ts): the flow action. */
import type { CrmConnector } from '../../../src/core/connector.js';
import type { CrmEntryPoints } from '../../../src/core/entry-point.js';
import { flowAction } from './flow-action.js';

export interface SalesforceEntryPointsOptions {
  /** The Salesforce connection; undefined when Salesforce is not configured (every call is then refused). */
  connector: CrmConnector | undefined;
  /** SALESFORCE_ACTION_SECRET: the flow action's own signing secret. */
  secret: string | undefined;
  /** SALESFORCE_ACTION_WAIT_MS. */
  actionWaitMs: number;
}

export function salesforceEntryPoints({
  connector,
  secret,
  actionWaitMs,
}: SalesforceEntryPointsOptions): CrmEntryPoints {
  return { crm: 'salesforce', entryPoints: [flowAction({ connector, secret, waitMs: actionWaitMs })] };
}
