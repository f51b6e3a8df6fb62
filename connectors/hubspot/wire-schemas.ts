/**
 * The shapes of HubSpot's answers that the connector reads, checked with zod instead of cast. Loose
 * objects: HubSpot adds fields over time, and only the ones read here must be there.
 */
import { z } from 'zod';

/** A CRM object as HubSpot answers it (properties empty when requested come as null). */
export const HubspotObject = z.looseObject({
  id: z.string(),
  properties: z
    .record(z.string(), z.string().nullable().optional())
    .transform(
      (p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v ?? null])) as Record<string, string | null>,
    ),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

export const HubspotObjects = z.array(HubspotObject);

/** An id HubSpot gives as text in most answers and as a number in some (v4 association results). */
const WireId = z.union([z.string(), z.number()]).transform(String);

/** One error of a batch answer: the inputs it names (`context.ids`) and why. */
export const BatchError = z.looseObject({
  category: z.string().optional(),
  message: z.string().optional(),
  context: z.record(z.string(), z.array(z.string())).optional(),
  errors: z
    .array(
      z.looseObject({
        message: z.string().optional(),
        code: z.string().optional(),
        context: z.record(z.string(), z.array(z.string())).optional(),
      }),
    )
    .optional(),
});

const Paging = z.looseObject({ next: z.looseObject({ after: z.string() }).optional() });

/** A batch read, create or update of objects: 200/201, or a partial answer with its errors. */
export const ObjectBatch = z.looseObject({ results: HubspotObjects, errors: z.array(BatchError).default([]) });

/** A search answer, or a page of all records. */
export const ObjectPage = z.looseObject({
  total: z.number().optional(),
  results: HubspotObjects,
  paging: Paging.optional(),
});

/** A v4 association batch create: the pairs made (ids as numbers, as HubSpot gives them) and the errors. */
export const AssociationBatch = z.looseObject({
  results: z.array(z.looseObject({ fromObjectId: WireId, toObjectId: WireId })),
  errors: z.array(BatchError).default([]),
});

/** A page of a list's members. */
export const MembershipPage = z.looseObject({
  results: z.array(z.looseObject({ recordId: WireId })),
  paging: Paging.optional(),
});

/** GET {lists}/{listId} and {lists}/object-type-id/{objectTypeId}/name/{listName}: a list's definition. */
export const ListDefinition = z.looseObject({
  list: z.looseObject({ listId: WireId, name: z.string(), objectTypeId: z.string() }),
});

/** GET /account-info/v3/details: only the portal id and time zone are read. */
export const AccountDetails = z.looseObject({
  portalId: z.number().optional(),
  timeZone: z.string().optional(),
  uiDomain: z.string().optional(),
});

/** GET /account-info/v3/api-usage/daily/private-apps. */
export const DailyUsage = z.looseObject({
  results: z.array(z.looseObject({ usageLimit: z.number(), currentUsage: z.number(), resetsAt: z.string() })).min(1),
});

/** GET and POST /crm/v4/associations/{from}/{to}/labels: the pair's association types, ours among them. */
export const AssociationLabels = z.looseObject({
  results: z.array(
    z.looseObject({
      category: z.string(),
      typeId: z.number().int(),
      label: z.string().nullish(),
    }),
  ),
});
