/**
 * Which person records a job-change sweep visits: a property filter (both CRMs), a HubSpot list, or a
 * Salesforce SOQL condition. One schema for the admin API's sweep request and the actions file's
 * scheduled sweeps, so both accept and refuse the same segments.
 */
import { z } from 'zod';

export const PropertySegment = z.strictObject({
  property: z.string().min(1).describe('the CRM property (HubSpot) or field (Salesforce) to filter on'),
  operator: z.enum(['EQ', 'IN']).default('EQ').describe('EQ for one value, IN for several'),
  value: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(100)]),
});

export const WhereSegment = z.strictObject({
  where: z.string().trim().min(1).max(4000).describe("a SOQL condition (Salesforce), e.g. LeadSource = 'Web'"),
});

export const ListSegment = z.strictObject({
  listId: z
    .string()
    .trim()
    .regex(/^\d{1,20}$/, 'expected a HubSpot list id (digits)')
    .describe('a HubSpot list id (HubSpot only)'),
});

export const SweepSegment = z
  .union([PropertySegment, WhereSegment, ListSegment])
  .describe('{property, operator?, value}, {listId} (HubSpot) or {where} (Salesforce)');
export type SweepSegment = z.output<typeof SweepSegment>;

/** Who may be swept: people whose partner data is at least this many days old (0: everyone). */
export const OlderThanDays = z.number().int().min(0).max(3650);
