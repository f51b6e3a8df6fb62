/**
 * The JSON trigger a Salesforce Flow HTTP callout sends to the same endpoint as outbound messages:
 * `{"records":[{"type":"Lead","id":"00Q..."}]}`. An `eventId` (e.g. the Flow interview GUID) or the
 * record's `lastModifiedDate` makes a resent callout recognisable as the same event; without either,
 * the same callout resent within the same minute is.
 */
import { z } from 'zod';
import { toId18 } from './ids.js';

export const FLOW_MAX_RECORDS = 100;

const RecordSchema = z.object({
  type: z.enum(['Lead', 'Contact', 'Account'], { error: 'expected Lead, Contact or Account' }),
  id: z.string().refine((id) => toId18(id) !== undefined, 'expected a 15- or 18-character Salesforce record id'),
  kind: z.enum(['created', 'changed', 'requested']).default('changed'),
  eventId: z.string().min(1).max(255).optional(),
  lastModifiedDate: z
    .string()
    .refine((d) => !Number.isNaN(Date.parse(d.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))), 'expected an ISO datetime')
    .optional(),
  values: z.record(z.string(), z.string().nullable()).optional(),
});

export const FlowCalloutSchema = z.object({
  /** Required, as on outbound messages: the one check that the callout comes from the connected org. */
  organizationId: z
    .string({ error: 'required: the org id ({!$Organization.Id} in the flow)' })
    .min(15, 'expected a 15- or 18-character org id')
    .max(18, 'expected a 15- or 18-character org id'),
  records: z
    .array(RecordSchema)
    .min(1, 'expected at least one record')
    .max(FLOW_MAX_RECORDS, `expected at most ${FLOW_MAX_RECORDS} records`),
});

export type FlowCallout = z.infer<typeof FlowCalloutSchema>;

/** The parsed body, or one message naming every bad field path. */
export function parseFlowCallout(json: unknown): { ok: true; value: FlowCallout } | { ok: false; message: string } {
  const parsed = FlowCalloutSchema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    message: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
  };
}
