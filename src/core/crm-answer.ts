/**
 * CRM answers are parsed at the boundary, not cast: a connector checks each answer against a zod schema
 * (lenient where the vendor adds fields) and an answer that does not fit is a CrmError naming the call
 * and what was wrong, by path and type only, so no personal value reaches a log or a message.
 */
import type { z } from 'zod';
import { CrmError, type CrmKind } from './connector.js';

export function parseCrmAnswer<S extends z.ZodType>(
  crm: CrmKind,
  schema: S,
  answer: unknown,
  operation: string,
): z.output<S> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  const name = crm === 'hubspot' ? 'HubSpot' : 'Salesforce';
  throw new CrmError(
    crm,
    'invalid_response',
    `${name} answered ${operation} in a shape crm-enrich does not understand (${where}); the answer was not used.`,
    undefined,
    undefined,
    { operation },
  );
}
