/**
 * A job change never rewrites how the record is known: the run that finds a move takes back any write
 * to the mapping's match properties (the contact's e-mail), and the decision says why. The old address
 * stays the record's; the partner's address at the new employer goes where the mapping puts work
 * e-mails, or into a new contact (the `newContact` action).
 */
import type { Plan } from '../../mapping/planner.js';

export function keepIdentifiers(plan: Plan, matchProperties: readonly string[]): Plan {
  const kept = new Set(matchProperties.filter((p) => p in plan.writes));
  if (kept.size === 0) return plan;
  return {
    writes: Object.fromEntries(Object.entries(plan.writes).filter(([p]) => !kept.has(p))),
    decisions: plan.decisions.map((d) =>
      kept.has(d.property) && d.outcome === 'write'
        ? { ...d, outcome: 'never', reason: "a job change keeps the record's identifier; it is not overwritten" }
        : d,
    ),
  };
}
