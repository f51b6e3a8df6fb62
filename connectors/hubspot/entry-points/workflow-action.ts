/**
 * "Enrich with crm-enrich" as a HubSpot workflow step: `POST /hubspot/actions/enrich`, HubSpot's
 * custom workflow action execution request, signed (v3) with the app's client secret. The record is
 * queued like any other and its outcome answered as output fields later steps branch on. A run that
 * does not settle within HUBSPOT_ACTION_WAIT_MS answers BLOCK; the step is then completed through
 * HubSpot's callback endpoint (workflow-callback-sender.ts) once it settles.
 */
import { Router } from 'express';
import { z } from 'zod';
import { enrichAndWait, type OnDemandOutcome } from '../../../src/enrich/on-demand/on-demand.js';
import { mappedObject } from '../../../src/core/connector-lookup.js';
import {
  checkHubspotSignature,
  hubspotOf,
  jsonOf,
  onDemandDeps,
  rawBody,
  type EntryPointContext,
} from '../../../src/server/entry-point-context.js';
import { route } from '../../../src/server/admin-request.js';
import { HttpError } from '../../../src/server/http-error.js';

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

export function hubspotActionRoutes(ctx: EntryPointContext, publicBase: string): Router {
  const router = Router();
  const deps = onDemandDeps(ctx);

  router.post(
    '/hubspot/actions/enrich',
    rawBody,
    route(async (req, res) => {
      checkHubspotSignature(req, ctx, publicBase);
      const parsed = ExecutionRequest.safeParse(jsonOf(req));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.') || 'body';
        throw new HttpError(400, 'invalid_request', `${field}: ${issue.message}`, { field });
      }
      const { callbackId, origin, object } = parsed.data;
      const connector = hubspotOf(ctx);
      const portal = connector.accountId?.();
      if (portal !== undefined && portal !== origin.portalId) {
        const message =
          'origin.portalId: the request comes from another HubSpot portal than the connected ' +
          `one (${portal}); nothing was done.`;
        throw new HttpError(403, 'wrong_portal', message, { field: 'origin.portalId' });
      }
      const objectType = OBJECT_TYPES[object.objectType.toUpperCase()];
      const mapped = objectType
        ? mappedObject(ctx.connectors, ctx.mappings, { connection: connector.connection }, objectType)
        : undefined;
      if (!mapped) {
        // A step on an object crm-enrich has no mapping for: nothing to do, and the workflow goes on.
        res.json({ outputFields: actionOutputs({ outcome: 'skipped', fieldsWritten: 0, matched: false }) });
        return;
      }
      // No dedup key on purpose: a step HubSpot sends again (our answer was late) gets a job of its own to
      // wait on; one keyed to the first would have nothing new to wait for if the first had settled already.
      const { ticket, result } = await enrichAndWait(deps, {
        connection: connector.connection,
        objectType: mapped.objectType,
        recordId: object.objectId,
        trigger: 'workflow',
        timeoutMs: ctx.config.HUBSPOT_ACTION_WAIT_MS,
      });
      if (result !== 'pending') {
        res.json({ outputFields: actionOutputs(result) });
        return;
      }
      // Kept before answering: once HubSpot has BLOCK, only this row remembers to complete the step.
      await ctx.store.workflowCallbacks.add({ callbackId, ...ticket });
      res.json({ outputFields: { hs_execution_state: 'BLOCK' } });
    }),
  );

  return router;
}
