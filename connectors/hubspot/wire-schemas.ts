/**
 * The shapes of HubSpot's answers that the connector reads, checked with zod instead of cast. Loose
 * objects: HubSpot adds fields over time, and only the ones read here must be there.
 */
import { z } from 'zod';

/** A CRM object as the SDK gives it back (its dates already parsed into Date objects). */
export const HubspotObject = z.looseObject({
  id: z.string(),
  properties: z
    .record(z.string(), z.string().nullable().optional())
    .transform(
      (p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v ?? null])) as Record<string, string | null>,
    ),
  createdAt: z.date().optional(),
  updatedAt: z.date().optional(),
});

export const HubspotObjects = z.array(HubspotObject);

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
