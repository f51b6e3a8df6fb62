/**
 * The answer of `GET /hubspot/card/:objectType/:objectId`: what the crm-enrich record card in HubSpot
 * shows (deploy/hubspot-app/src/app/cards/). The card is uploaded to HubSpot and cannot import this file,
 * so this schema is the contract both sides are tested against: the route builds its answer through it,
 * and the card's rendering test feeds the card answers parsed by it.
 */
import { z } from 'zod';

/**
 * The object types in the card's URLs, named as the HubSpot connector names them (the card maps HubSpot's
 * object type ids 0-1 and 0-2 to these).
 */
export const CARD_OBJECT_TYPES = ['contact', 'company'] as const;
export type CardObjectType = (typeof CARD_OBJECT_TYPES)[number];

export const CARD_STATES = ['enriched', 'no_match', 'pending', 'failed', 'never'] as const;

/** What started a run. Open-ended: a new entry point is a new value, which the card shows as it is. */
export const KNOWN_RUN_TRIGGERS = ['webhook', 'cron', 'workflow', 'card', 'flow', 'admin', 'backfill', 'mcp'] as const;

const isoTime = z.iso.datetime({ offset: true });

export const CardField = z.object({
  /** The CRM property written, e.g. `jobtitle`. */
  property: z.string().min(1),
  /** Its label in the CRM when known, for display. */
  label: z.string().min(1).nullable().default(null),
  value: z.string().nullable(),
  /** Why this value was written (or kept), as the planner and the audit log state it. */
  reason: z.string().min(1),
});
export type CardField = z.infer<typeof CardField>;

export const CardCompany = z.object({
  /** The CRM id of the company the record is linked with. */
  id: z.string().min(1),
  name: z.string().nullable(),
  /** Why the record is linked with this company (matched by domain, created, kept...). */
  reason: z.string().min(1),
});

export const CardJobChange = z.object({
  /** When the partner reported the change, or when crm-enrich noticed it. */
  detectedAt: isoTime,
  previousTitle: z.string().nullable(),
  previousCompany: z.string().nullable(),
  newTitle: z.string().nullable(),
  newCompany: z.string().nullable(),
});

export const CardData = z.object({
  objectType: z.enum(CARD_OBJECT_TYPES),
  objectId: z.string().min(1),
  state: z.enum(CARD_STATES),
  /** The last run's end (or start, while pending); null when the record was never enriched. */
  lastRunAt: isoTime.nullable(),
  /** What started the last run: one of KNOWN_RUN_TRIGGERS, or a newer entry point's name. */
  lastRunTrigger: z.string().min(1).nullable(),
  /** The job of the last run, so an admin can find it in the admin page and the audit log. */
  lastRunId: z.string().min(1).nullable().default(null),
  /** For a failed run: what went wrong, in words for the person looking at the record. */
  message: z.string().nullable().default(null),
  fields: z.array(CardField),
  company: CardCompany.nullable(),
  jobChange: CardJobChange.nullable(),
});
/** The card's data as the route sends it (defaults applied). */
export type CardData = z.infer<typeof CardData>;
/** The card's data as a builder may give it to CardData.parse (defaulted fields may be left out). */
export type CardDataInput = z.input<typeof CardData>;

/** The answer of `POST /hubspot/card/:objectType/:objectId/enrich`: the run that was queued. */
export const CardEnrichAnswer = z.object({
  state: z.literal('pending'),
  runId: z.string().min(1).nullable(),
});
export type CardEnrichAnswer = z.infer<typeof CardEnrichAnswer>;
