/**
 * The endpoints the CRMs call from inside themselves (docs/crm-entry-points.md): the HubSpot workflow
 * action and record card, and the Salesforce flow action. Each checks its caller its own way (HubSpot's
 * v3 signature and portal, the Salesforce shared secret and org) before anything is done.
 */
import { Router } from 'express';
import { entryPointErrors, type EntryPointContext } from './entry-point-context.js';
import { hubspotActionRoutes } from '../../connectors/hubspot/entry-points/workflow-action.js';
import { hubspotCardRoutes } from '../../connectors/hubspot/entry-points/record-card.js';
import { salesforceActionRoutes } from '../../connectors/salesforce/entry-points/flow-action.js';

export function crmEntryPoints(ctx: EntryPointContext, publicUrl: string): Router {
  const publicBase = publicUrl.replace(/\/+$/, '');
  const router = Router();
  router.use(hubspotActionRoutes(ctx, publicBase));
  router.use(hubspotCardRoutes(ctx, publicBase));
  router.use(salesforceActionRoutes(ctx));
  router.use(entryPointErrors);
  return router;
}
