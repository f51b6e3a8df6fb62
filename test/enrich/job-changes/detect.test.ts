/**
 * The pure decision: a move is a different current employer (by domain, else by partner company id)
 * or a newer start at the same one; nothing known, someone else, or no employer is never a move.
 */
import { describe, expect, it } from 'vitest';
import { detectJobChange, roleOf, type Role } from '../../../src/enrich/job-changes/detect.js';

const person = (over: Record<string, unknown> = {}) => ({
  id: 'pe_0000001',
  position: 'Sales Manager',
  current_company: { id: 'co_1', name: 'Acme', website: 'https://www.acme.example/' },
  month_joined: 3,
  year_joined: 2021,
  ...over,
});

const known: Role = {
  personId: 'pe_0000001',
  employer: { companyId: 'co_1', domain: 'acme.example', name: 'Acme' },
  title: 'Sales Manager',
  started: '2021-03',
};

describe('roleOf', () => {
  it('reads employer, title and start from a partner person, the domain normalised', () => {
    expect(roleOf(person())).toEqual(known);
  });

  it('has no role without an employer, and no start without both month and year', () => {
    expect(roleOf(person({ current_company: { name: 'No site or id' } }))).toBeUndefined();
    expect(roleOf(person({ month_joined: undefined }))?.started).toBeNull();
    expect(roleOf(person({ month_joined: 13 }))?.started).toBeNull();
  });
});

describe('detectJobChange', () => {
  it('calls the same employer and start the same, whatever form the website takes', () => {
    expect(detectJobChange(known, person({ current_company: { id: 'co_1', website: 'ACME.example' } })).kind).toBe(
      'same',
    );
  });

  it('finds a move to another domain, saying from where to where', () => {
    const result = detectJobChange(
      known,
      person({
        current_company: { id: 'co_2', name: 'Globex', website: 'globex.example' },
        position: 'VP Sales',
        month_joined: 6,
        year_joined: 2025,
      }),
    );
    expect(result).toMatchObject({
      kind: 'moved',
      how: 'employer',
      from: known,
      now: { employer: { domain: 'globex.example', name: 'Globex' }, title: 'VP Sales', started: '2025-06' },
    });
    expect(result.reason).toBe('the current employer changed from acme.example to globex.example');
  });

  it('compares partner company ids when a domain is missing on either side', () => {
    const noDomain = { ...known, employer: { ...known.employer, domain: null } };
    expect(detectJobChange(noDomain, person({ current_company: { id: 'co_2', website: 'globex.example' } })).kind).toBe(
      'moved',
    );
    expect(detectJobChange(noDomain, person({ current_company: { id: 'co_1', website: 'acme.example' } })).kind).toBe(
      'same',
    );
  });

  it('finds a newer start at the same employer as a new role, and an older or equal one as the same', () => {
    expect(
      detectJobChange(known, person({ month_joined: 1, year_joined: 2024, position: 'Head of Sales' })),
    ).toMatchObject({ kind: 'moved', how: 'new_role' });
    expect(detectJobChange(known, person({ month_joined: 12, year_joined: 2020 })).kind).toBe('same');
    expect(detectJobChange(known, person({ month_joined: undefined })).kind).toBe('same');
  });

  it('never calls a first sight, another person or an unknown employer a move', () => {
    expect(detectJobChange(undefined, person()).kind).toBe('first_seen');
    expect(
      detectJobChange(known, person({ id: 'pe_0000002', current_company: { id: 'co_2', website: 'globex.example' } }))
        .kind,
    ).toBe('other_person');
    expect(detectJobChange(known, person({ current_company: undefined })).kind).toBe('unknown');
  });
});
