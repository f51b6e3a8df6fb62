/**
 * The identifying values a new record starts with: its e-mail,
 * partner id and profile, as the mapping's match rules name them.
 */
import type { CompiledMapping } from '../mapping/index.js';

type Emails = { work?: { value?: string }[]; personal?: { value?: string }[] };

function valueFor(by: string, person: Record<string, unknown>): string | undefined {
  const emails = (person.emails ?? {}) as Emails;
  switch (by) {
    case 'id':
      return typeof person.id === 'string' ? person.id : undefined;
    case 'work_email':
      return emails.work?.find((e) => e.value)?.value;
    case 'personal_email':
      return emails.personal?.find((e) => e.value)?.value;
    case 'ln_url':
      return typeof person.linkedin === 'string' ? person.linkedin : undefined;
    case 'ln_slug': {
      const m = typeof person.linkedin === 'string' ? /\/in\/([^/?#]+)/.exec(person.linkedin) : null;
      return m?.[1];
    }
    default:
      return undefined;
  }
}

/** Property -> value for each match rule, the first rule of a property winning (work e-mail before personal). */
export function identityValues(mapping: CompiledMapping, person: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of mapping.document.match) {
    if (out[rule.property] !== undefined) continue;
    const value = valueFor(rule.by, person);
    if (value) out[rule.property] = value;
  }
  return out;
}

/** The property the mapping keeps the e-mail address in (its first e-mail match rule). */
export function emailProperty(mapping: CompiledMapping): string | undefined {
  return mapping.document.match.find((m) => m.by === 'work_email' || m.by === 'personal_email')?.property;
}
