/**
 * Whether a person changed jobs: the one pure function that decides, given the role the CRM record
 * holds (as the last lookup showed it) and the partner person a lookup just answered. It spends
 * nothing: it reads what the refresh looked up anyway.
 */
import { domainOf } from '../../core/domain.js';
import { Person } from '../../partner/schemas.js';

/** An employer, as the partner names it. */
export interface Employer {
  /** The partner's company id. */
  companyId: string | null;
  domain: string | null;
  name: string | null;
}

/** A person's role: where, as what, since when (`YYYY-MM`). */
export interface Role {
  personId: string | null;
  employer: Employer;
  title: string | null;
  started: string | null;
}

export type Detection =
  /** Nothing known to compare with: what the lookup shows becomes the known role. */
  | { kind: 'first_seen'; now: Role; reason: string }
  /** The lookup found someone else (the record's identifier changed): not a move, the known role is replaced. */
  | { kind: 'other_person'; now: Role; reason: string }
  /** The partner names no employer: nothing can be said, the known role stays. */
  | { kind: 'unknown'; reason: string }
  | { kind: 'same'; now: Role; reason: string }
  | { kind: 'moved'; from: Role; now: Role; how: 'employer' | 'new_role'; reason: string };

/** The role a partner person record shows, or undefined when it names no employer. */
export function roleOf(data: Record<string, unknown>): Role | undefined {
  const parsed = Person.safeParse(data);
  if (!parsed.success) return undefined;
  const person = parsed.data;
  const company = person.current_company;
  const domain = company?.website ? (domainOf(company.website) ?? null) : null;
  const companyId = company?.id?.trim() || null;
  if (!domain && !companyId) return undefined;
  const { month_joined: month, year_joined: year } = person;
  const started = year && month && month >= 1 && month <= 12 ? `${year}-${String(month).padStart(2, '0')}` : null;
  return {
    personId: person.id?.trim() || null,
    employer: { companyId, domain, name: company?.name?.trim() || null },
    title: person.position?.trim() || null,
    started,
  };
}

/** Two employers are the same when their domains are (else their partner ids are, when both are known). */
function sameEmployer(a: Employer, b: Employer): boolean {
  if (a.domain && b.domain) return a.domain === b.domain;
  if (a.companyId && b.companyId) return a.companyId === b.companyId;
  return true;
}

export function detectJobChange(known: Role | undefined, data: Record<string, unknown>): Detection {
  const now = roleOf(data);
  if (!now) return { kind: 'unknown', reason: 'the partner names no current employer' };
  if (!known) return { kind: 'first_seen', now, reason: 'no earlier lookup of this record to compare with' };
  if (known.personId && now.personId && known.personId !== now.personId) {
    return {
      kind: 'other_person',
      now,
      reason: `the record now matches partner person ${now.personId}, not ${known.personId}`,
    };
  }
  if (!sameEmployer(known.employer, now.employer)) {
    const was = known.employer.domain ?? known.employer.companyId;
    const is = now.employer.domain ?? now.employer.companyId;
    return {
      kind: 'moved',
      from: known,
      now,
      how: 'employer',
      reason: `the current employer changed from ${was} to ${is}`,
    };
  }
  // `YYYY-MM` strings compare in time order.
  if (known.started && now.started && now.started > known.started) {
    return {
      kind: 'moved',
      from: known,
      now,
      how: 'new_role',
      reason: `a new role at the same employer since ${now.started} (was since ${known.started})`,
    };
  }
  return { kind: 'same', now, reason: 'the same employer and role start as the last lookup showed' };
}
