/**
 * The HubSpot record card's backend, called through `hubspot.fetch` (signed v3 with the app's client
 * secret; HubSpot adds the viewer's `portalId`, `userId`, `userEmail` and `appId` to the query):
 * GET /hubspot/card/:objectType/:objectId answers CardData (crm-card-model.ts), and
 * POST /hubspot/card/:objectType/:objectId/enrich queues the record ("Enrich now") and answers at once.
 * The portal must be the connected one.
 */
import { Router, type Request } from 'express';
import type { CrmConnector } from '../../../src/core/connector.js';
import { queueName } from '../../../src/enrich/jobs.js';
import { requestEnrichment } from '../../../src/enrich/on-demand/on-demand.js';
import { logger } from '../../../src/logger.js';
import { mappedObject, objectTypeIn } from '../../../src/core/connector-lookup.js';
import { route } from '../../../src/server/admin-request.js';
import { buildCardData } from './card-builder.js';
import { CardEnrichAnswer, type CardObjectType } from './card-model.js';
import {
  checkHubspotSignature,
  hubspotOf,
  onDemandDeps,
  rawBody,
  type EntryPointContext,
} from '../../../src/server/entry-point-context.js';
import { HttpError } from '../../../src/server/http-error.js';

const log = logger('server.card');

/** The ways a card names its record's object: HubSpot's type ids, and singular or plural names. */
const OBJECT_TYPES: Record<string, string | undefined> = {
  contact: 'contact',
  contacts: 'contact',
  '0-1': 'contact',
  company: 'company',
  companies: 'company',
  '0-2': 'company',
};

const AUDIT_ROWS = 200;

export function hubspotCardRoutes(ctx: EntryPointContext, publicBase: string): Router {
  const router = Router();
  const deps = onDemandDeps(ctx);

  /** Signature, portal and record of a card request; throws the refusal. */
  async function checked(req: Request): Promise<{ connector: CrmConnector; objectType: string; recordId: string }> {
    checkHubspotSignature(req, ctx, publicBase);
    const connector = hubspotOf(ctx);
    const portalId = typeof req.query.portalId === 'string' ? req.query.portalId : undefined;
    if (!portalId)
      throw new HttpError(400, 'invalid_request', 'portalId: required in the query (hubspot.fetch adds it)', {
        field: 'portalId',
      });
    if (connector.accountId?.() === undefined) await connector.prepare?.();
    const portal = connector.accountId?.();
    if (portal === undefined) {
      throw new HttpError(
        503,
        'portal_unknown',
        'The connected HubSpot portal is not known yet (its account details could not be read); try again shortly.',
      );
    }
    if (portal !== portalId) {
      throw new HttpError(
        403,
        'wrong_portal',
        `portalId: the card is shown in another HubSpot portal than the connected one (${portal}).`,
        { field: 'portalId' },
      );
    }
    const name = OBJECT_TYPES[String(req.params.objectType).toLowerCase()];
    const objectType = name && objectTypeIn(connector, name);
    if (!objectType) {
      const message = `objectType: expected contact or company (or 0-1, 0-2), not "${String(req.params.objectType)}"`;
      throw new HttpError(404, 'not_found', message, { field: 'objectType' });
    }
    const recordId = String(req.params.objectId);
    if (!/^\d{1,20}$/.test(recordId))
      throw new HttpError(400, 'invalid_request', 'objectId: expected a HubSpot record id (digits)', {
        field: 'objectId',
      });
    return { connector, objectType, recordId };
  }

  router.get(
    '/hubspot/card/:objectType/:objectId',
    rawBody,
    route(async (req, res) => {
      const { connector, objectType, recordId } = await checked(req);
      const key = { connection: connector.connection, objectType, recordId };
      const { state, audit } = await ctx.store.recordView(key, AUDIT_ROWS);
      const jobIds = [...new Set(audit.map((r) => r.jobId).filter((j): j is string => j !== null))];
      const jobs = await ctx.store.queue.lookup(queueName(key.connection, objectType), jobIds);
      const triggers = new Map([...jobs].flatMap(([id, j]) => (j.reason ? [[id, j.reason] as const] : [])));
      const name = await companyName(connector, state?.companyId ?? null);
      const cardType = objectType as CardObjectType;
      res.json(buildCardData({ objectType: cardType, objectId: recordId, state, audit, triggers, companyName: name }));
    }),
  );

  router.post(
    '/hubspot/card/:objectType/:objectId/enrich',
    rawBody,
    route(async (req, res) => {
      const { connector, objectType, recordId } = await checked(req);
      if (!mappedObject(ctx.connectors, ctx.mappings, { connection: connector.connection }, objectType)) {
        throw new HttpError(
          404,
          'not_mapped',
          `objectType: ${objectType} has no active mapping, so there is nothing to enrich`,
          { field: 'objectType' },
        );
      }
      const ticket = await requestEnrichment(deps, {
        connection: connector.connection,
        objectType,
        recordId,
        trigger: 'card',
      });
      res.status(202).json(CardEnrichAnswer.parse({ state: 'pending', runId: ticket.jobId }));
    }),
  );

  return router;
}

/** The linked company's name from HubSpot, or null when it cannot be read now (the card still shows its id). */
async function companyName(connector: CrmConnector, companyId: string | null): Promise<string | null> {
  if (!companyId || !connector.companyObjectType) return null;
  try {
    const [company] = await connector.readRecords(connector.companyObjectType, [companyId], ['name'], {
      priority: 'interactive',
    });
    return company?.properties.name ?? null;
  } catch (error) {
    log.warn({ err: error }, 'could not read the linked company for the record card');
    return null;
  }
}
