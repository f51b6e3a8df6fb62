/**
 * The person at the new employer, as a new contact would hold them: the partner's work e-mail at the
 * new employer's domain (or a subdomain of it), with the person's names. None when the partner knows
 * no such address.
 */
import { domainOf } from '../../core/domain.js';
import { Person } from '../../partner/schemas.js';

export function workEmailAt(
  data: Record<string, unknown>,
  domain: string | null,
): { email: string; firstName: string | null; lastName: string | null } | null {
  if (!domain) return null;
  const parsed = Person.safeParse(data);
  if (!parsed.success) return null;
  const person = parsed.data;
  for (const entry of person.emails?.work ?? []) {
    const email = entry.value?.trim().toLowerCase();
    const at = email?.lastIndexOf('@') ?? -1;
    if (!email || at <= 0) continue;
    const host = domainOf(email.slice(at + 1));
    if (host && (host === domain || host.endsWith(`.${domain}`)))
      return { email, firstName: person.first_name?.trim() || null, lastName: person.last_name?.trim() || null };
  }
  return null;
}
