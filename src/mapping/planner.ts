/**
 * The write planner: a pure function from what the CRM holds, what the mapping produced and what we
 * last wrote to the properties to write, with the reason for every property. Nothing changed means
 * nothing to write, so refreshing unchanged data costs no CRM call.
 */
import { DEFAULT_RULE, type Rule } from './format.js';

export type Outcome = 'write' | 'unchanged' | 'kept_person_edit' | 'filled_already' | 'never' | 'no_value' | 'too_long';

export interface Decision {
  property: string;
  current: string | null;
  next: string | null;
  rule: Rule;
  outcome: Outcome;
  reason: string;
}

export interface PlanInput {
  /** Values the CRM record holds now (null or absent when empty). */
  current: Readonly<Record<string, string | null | undefined>>;
  /** Values the mapping produced from the partner record. */
  mapped: Readonly<Record<string, string>>;
  /** Values crm-enrich last wrote to this record, from the state table. */
  lastWritten: Readonly<Record<string, string | null | undefined>>;
  rules: Readonly<Record<string, Rule>>;
  /** The enriched-at stamp: written along with other changes, never on its own. */
  stamp?: { property: string; value: string };
  /** The longest value the CRM takes; a longer one is not written, and the decision says why. */
  maxValueLength?: number;
}

export interface Plan {
  writes: Record<string, string>;
  decisions: Decision[];
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function blank(value: string | null | undefined): boolean {
  return value === undefined || value === null || value.trim() === '';
}

/** Equal as the CRM means it: the same text, the same number ("1000" and "1000.0"), or the same time. */
export function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const x = a.trim();
  const y = b.trim();
  if (x === y) return true;
  if (x === '' || y === '') return false;
  const nx = Number(x);
  const ny = Number(y);
  if (Number.isFinite(nx) && Number.isFinite(ny)) return nx === ny;
  if (ISO_DATE.test(x) && ISO_DATE.test(y)) return Date.parse(x) === Date.parse(y);
  const lx = x.toLowerCase();
  return (lx === 'true' || lx === 'false') && lx === y.toLowerCase();
}

function own(record: Readonly<Record<string, string | null | undefined>>, key: string): string | null {
  return Object.hasOwn(record, key) ? (record[key] ?? null) : null;
}

type Verdict = Readonly<Pick<Decision, 'outcome' | 'reason'>>;

// Verdicts are shared constants: planning runs for every record of a refresh, so it allocates little.
const NEVER: Verdict = { outcome: 'never', reason: 'the rule is never' };
const NO_VALUE: Verdict = { outcome: 'no_value', reason: 'the partner has no value; nothing is cleared' };
const UNCHANGED: Verdict = { outcome: 'unchanged', reason: 'the CRM already holds this value' };
const EMPTY: Verdict = { outcome: 'write', reason: 'the property is empty' };
const OVERWRITE: Verdict = { outcome: 'write', reason: 'the rule is overwrite' };
const FILLED: Verdict = {
  outcome: 'filled_already',
  reason: 'the property already has a value and the rule is fill_empty',
};
const OURS: Verdict = { outcome: 'write', reason: 'the current value is the one crm-enrich last wrote' };
const NOT_OURS: Verdict = { outcome: 'kept_person_edit', reason: 'a value crm-enrich did not write is kept' };
const EDITED: Verdict = {
  outcome: 'kept_person_edit',
  reason: 'a person changed the value since crm-enrich last wrote it',
};

function decide(current: string | null, next: string | null, rule: Rule, last: string | null): Verdict {
  if (rule === 'never') return NEVER;
  if (next === null) return NO_VALUE;
  if (blank(current)) return EMPTY;
  if (sameValue(current!, next)) return UNCHANGED;
  if (rule === 'overwrite') return OVERWRITE;
  if (rule === 'fill_empty') return FILLED;
  if (last === null) return NOT_OURS;
  return sameValue(current!, last) ? OURS : EDITED;
}

function consider(input: PlanInput, property: string, rule: Rule, out: Plan): boolean {
  const current = own(input.current, property);
  const next = Object.hasOwn(input.mapped, property) ? input.mapped[property]! : null;
  let verdict = decide(current, next, rule, own(input.lastWritten, property));
  if (verdict.outcome === 'write' && input.maxValueLength !== undefined && next!.length > input.maxValueLength) {
    // The CRM would refuse the whole record's write for it; better to write the rest and say why.
    verdict = {
      outcome: 'too_long',
      reason:
        `the value has ${next!.length} characters, more than the CRM takes (${input.maxValueLength}); ` + 'not written',
    };
  }
  out.decisions.push({ property, current, next, rule, outcome: verdict.outcome, reason: verdict.reason });
  if (verdict.outcome !== 'write') return false;
  out.writes[property] = next!;
  return true;
}

export function plan(input: PlanInput): Plan {
  const out: Plan = { writes: {}, decisions: [] };
  const stampProperty = input.stamp?.property;
  let changed = false;
  for (const property in input.rules) {
    if (property !== stampProperty && Object.hasOwn(input.rules, property))
      changed = consider(input, property, input.rules[property]!, out) || changed;
  }
  for (const property in input.mapped) {
    if (property !== stampProperty && Object.hasOwn(input.mapped, property) && !Object.hasOwn(input.rules, property)) {
      changed = consider(input, property, DEFAULT_RULE, out) || changed;
    }
  }
  if (input.stamp) {
    const { property, value } = input.stamp;
    if (changed) out.writes[property] = value;
    out.decisions.push({
      property,
      current: own(input.current, property),
      next: value,
      rule: 'overwrite',
      outcome: changed ? 'write' : 'unchanged',
      reason: changed
        ? 'stamped because other properties are written'
        : 'nothing else changed; the stamp alone is never written',
    });
  }
  return out;
}
