/**
 * The HubSpot record card's backend, called through `hubspot.fetch` (signed v3 with the app's client
 * secret; HubSpot adds the viewer's `portalId`, `userId`, `userEmail` and `appId` to the query):
 * GET /hubspot/card/:objectType/:objectId answers CardData (card-model.ts), and
 * POST /hubspot/card/:objectType/:objectId/enrich queues the record ("Enrich now") and answers at once.
 * The portal must be the connected one.
 */
import type { CrmConnector } from '../../../src/core/connector.js';
import { objectTypeIn } from '../../../src/core/connector-lookup.js';
import {
  EntryPointError,
  type EntryPoint,
  type EntryPointRequest,
  type OnDemandRecord,
  type QueueRequest,
  type ViewRequest,
} from '../../../src/core/entry-point.js';
import { logger } from '../../../src/logger.js';
import { buildCardData } from './card-builder.js';
import { CardEnrichAnswer, type CardObjectType } from './card-model.js';
import { connectedHubspot } from './connected.js';
import { PropertyLabels } from './property-labels.js';
import { checkSignature, signatureHeadRefusal } from './signed-request.js';

const log = logger('connector.hubspot.card');

/** The ways a card names its record's object: HubSpot's type ids, and singular or plural names. */
const OBJECT_TYPES: Record<string, string | undefined> = {
  contact: 'contact',
  contacts: 'contact',
  '0-1': 'contact',
  company: 'company',
  companies: 'company',
  '0-2': 'company',
};

export interface RecordCardOptions {
  /** The HubSpot connection; undefined when HubSpot is not configured (every call is then refused). */
  connector: CrmConnector | undefined;
  clientSecret: string | undefined;
}

/** The card's data: `GET /hubspot/card/:objectType/:objectId`. */
export function recordCard(options: RecordCardOptions): EntryPoint<ViewRequest> {
  const propertyLabels = new PropertyLabels();
  return {
    method: 'GET',
    path: '/hubspot/card/:objectType/:objectId',
    verifyHead: (head) => signatureHeadRefusal(head, options.clientSecret),

    async parse(request) {
      const { connector, record } = await checked(request, options);
      return { kind: 'view', connection: connector.connection, record };
    },

    async render({ record }, { state, audit, triggers }) {
      const connector = connectedHubspot(options.connector);
      const [name, labels] = await Promise.all([
        companyName(connector, state?.companyId ?? null),
        propertyLabels.labelsOf(connector, record.objectType),
      ]);
      const objectType = record.objectType as CardObjectType;
      const data = buildCardData({
        objectType,
        objectId: record.recordId,
        state,
        audit,
        triggers,
        companyName: name,
        labels,
      });
      return { status: 200, body: data };
    },
  };
}

/** The card's "Enrich now": `POST /hubspot/card/:objectType/:objectId/enrich`. */
export function cardEnrichNow(options: RecordCardOptions): EntryPoint<QueueRequest> {
  return {
    method: 'POST',
    path: '/hubspot/card/:objectType/:objectId/enrich',
    verifyHead: (head) => signatureHeadRefusal(head, options.clientSecret),

    async parse(request) {
      const { connector, record } = await checked(request, options);
      return { kind: 'queue', connection: connector.connection, trigger: 'card', record };
    },

    async render({ record }, answer) {
      if (!answer.mapped) {
        throw new EntryPointError(
          404,
          'not_mapped',
          `objectType: ${record.objectType} has no active mapping, so there is nothing to enrich`,
          { field: 'objectType' },
        );
      }
      return { status: 202, body: CardEnrichAnswer.parse({ state: 'pending', runId: answer.runId }) };
    },
  };
}

/** Signature, portal and record of a card request; throws the refusal. */
async function checked(
  request: EntryPointRequest,
  options: RecordCardOptions,
): Promise<{ connector: CrmConnector; record: OnDemandRecord }> {
  checkSignature(request, options.clientSecret);
  const connector = connectedHubspot(options.connector);
  const portalId = request.query.portalId;
  if (!portalId)
    throw new EntryPointError(400, 'invalid_request', 'portalId: required in the query (hubspot.fetch adds it)', {
      field: 'portalId',
    });
  if (connector.accountId?.() === undefined) await connector.prepare?.();
  const portal = connector.accountId?.();
  if (portal === undefined) {
    throw new EntryPointError(
      503,
      'portal_unknown',
      'The connected HubSpot portal is not known yet (its account details could not be read); try again shortly.',
    );
  }
  if (portal !== portalId) {
    throw new EntryPointError(
      403,
      'wrong_portal',
      `portalId: the card is shown in another HubSpot portal than the connected one (${portal}).`,
      { field: 'portalId' },
    );
  }
  const name = OBJECT_TYPES[String(request.params.objectType).toLowerCase()];
  const objectType = name && objectTypeIn(connector, name);
  if (!objectType) {
    const message = `objectType: expected contact or company (or 0-1, 0-2), not "${String(request.params.objectType)}"`;
    throw new EntryPointError(404, 'not_found', message, { field: 'objectType' });
  }
  const recordId = String(request.params.objectId);
  if (!/^\d{1,20}$/.test(recordId))
    throw new EntryPointError(400, 'invalid_request', 'objectId: expected a HubSpot record id (digits)', {
      field: 'objectId',
    });
  return { connector, record: { objectType, recordId } };
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
