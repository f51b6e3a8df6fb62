/**
 * The write planner: a pure function from what the CRM holds, what the mapping produced and what we
 * last wrote to the properties to write, with the reason for every property. Nothing changed means
 * nothing to write, so refreshing unchanged data costs no CRM call.
 */
import { DEFAULT_RULE, type Rule } from './format.js';

export type Outcome = 'write' | 'unchanged' | 'kept_person_edit' | 'filled_already' | 'never' | 'no_value';

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

function decide(property: string, current: string | null, next: string | null, rule: Rule, last: string | null): Omit<Decision, 'property' | 'current' | 'next' | 'rule'> {
  if (rule === 'never') return { outcome: 'never', reason: 'the rule is never' };
  if (next === null) return { outcome: 'no_value', reason: 'the partner has no value; nothing is cleared' };
  if (current !== null && !blank(current) && sameValue(current, next)) return { outcome: 'unchanged', reason: 'the CRM already holds this value' };
  if (blank(current)) return { outcome: 'write', reason: 'the property is empty' };
  switch (rule) {
    case 'overwrite':
      return { outcome: 'write', reason: 'the rule is overwrite' };
    case 'fill_empty':
      return { outcome: 'filled_already', reason: 'the property already has a value and the rule is fill_empty' };
    case 'protect_edits':
      if (last !== null && sameValue(current!, last)) return { outcome: 'write', reason: 'the current value is the one crm-enrich last wrote' };
      return {
        outcome: 'kept_person_edit',
        reason: last === null ? 'a value crm-enrich did not write is kept' : 'a person changed the value since crm-enrich last wrote it',
      };
  }
  return { outcome: 'never', reason: `unknown rule ${String(rule)} on ${property}` };
}

export function plan(input: PlanInput): Plan {
  const writes: Record<string, string> = {};
  const decisions: Decision[] = [];
  const seen = new Set<string>();
  const consider = (property: string) => {
    if (seen.has(property) || property === input.stamp?.property) return;
    seen.add(property);
    const rule = Object.hasOwn(input.rules, property) ? input.rules[property]! : DEFAULT_RULE;
    const current = own(input.current, property);
    const next = Object.hasOwn(input.mapped, property) ? input.mapped[property]! : null;
    const decision = decide(property, current, next, rule, own(input.lastWritten, property));
    decisions.push({ property, current, next, rule, ...decision });
    if (decision.outcome === 'write') writes[property] = next!;
  };
  for (const property of Object.keys(input.rules)) consider(property);
  for (const property of Object.keys(input.mapped)) consider(property);

  if (input.stamp) {
    const { property, value } = input.stamp;
    const current = own(input.current, property);
    const changed = Object.keys(writes).length > 0;
    if (changed) writes[property] = value;
    decisions.push({
      property,
      current,
      next: value,
      rule: 'overwrite',
      outcome: changed ? 'write' : 'unchanged',
      reason: changed ? 'stamped because other properties are written' : 'nothing else changed; the stamp alone is never written',
    });
  }
  return { writes, decisions };
}
