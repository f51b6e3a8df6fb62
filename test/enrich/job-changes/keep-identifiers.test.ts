/** A move never rewrites the record's identifiers: writes to the match properties are taken back, with the reason. */
import { describe, expect, it } from 'vitest';
import { keepIdentifiers } from '../../../src/enrich/job-changes/keep-identifiers.js';
import type { Plan } from '../../../src/mapping/planner.js';

const decision = (property: string, next: string, outcome: 'write' | 'unchanged' = 'write') => ({
  property,
  current: 'old',
  next,
  rule: 'overwrite' as const,
  outcome,
  reason: 'the partner value differs',
});

describe('keepIdentifiers', () => {
  it("drops writes to the record's match properties and says why, leaving the rest", () => {
    const plan: Plan = {
      writes: { email: 'ann@new.example', jobtitle: 'VP Sales' },
      decisions: [
        decision('email', 'ann@new.example'),
        decision('jobtitle', 'VP Sales'),
        decision('phone', '1', 'unchanged'),
      ],
    };
    const kept = keepIdentifiers(plan, ['email', 'hs_linkedin_url']);
    expect(kept.writes).toEqual({ jobtitle: 'VP Sales' });
    expect(kept.decisions[0]).toMatchObject({
      property: 'email',
      outcome: 'never',
      reason: expect.stringMatching(/job change/),
    });
    expect(kept.decisions.slice(1)).toEqual(plan.decisions.slice(1));
  });

  it('gives back the same plan when it writes no identifier', () => {
    const plan: Plan = { writes: { jobtitle: 'CTO' }, decisions: [decision('jobtitle', 'CTO')] };
    expect(keepIdentifiers(plan, ['email'])).toBe(plan);
  });
});
