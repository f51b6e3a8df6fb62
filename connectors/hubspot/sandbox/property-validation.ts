/**
 * Value checks as HubSpot makes them on write: the property must exist and be writable, numbers must
 * be numbers, enumeration values must be among the options. Each problem carries HubSpot's error code.
 */
import type { HubspotProperty } from '../property-wire.js';

export interface PropertyProblem {
  name: string;
  code:
    | 'PROPERTY_DOESNT_EXIST'
    | 'READ_ONLY_VALUE'
    | 'INVALID_OPTION'
    | 'INVALID_INTEGER'
    | 'INVALID_DATE'
    | 'INVALID_BOOLEAN'
    | 'INVALID_STRING_LENGTH'
    | 'REQUIRED_PROPERTY';
  message: string;
}

/** Problems that make the whole request wrong (HubSpot answers 400), as opposed to a bad value (per record). */
export const REQUEST_PROBLEMS: ReadonlySet<PropertyProblem['code']> = new Set([
  'PROPERTY_DOESNT_EXIST',
  'READ_ONLY_VALUE',
]);

function checkValue(def: HubspotProperty, value: string): PropertyProblem | undefined {
  if (value === '') return undefined;
  const name = def.name;
  if (def.type === 'number' && !/^-?\d+(\.\d+)?$/.test(value.trim())) {
    return { name, code: 'INVALID_INTEGER', message: `${value} is not a valid number for ${name}` };
  }
  if (def.type === 'bool' && value !== 'true' && value !== 'false') {
    return { name, code: 'INVALID_BOOLEAN', message: `${value} is not a valid boolean for ${name}; use true or false` };
  }
  if ((def.type === 'date' || def.type === 'datetime') && !/^\d+$/.test(value) && Number.isNaN(Date.parse(value))) {
    return { name, code: 'INVALID_DATE', message: `${value} is not a valid date for ${name}` };
  }
  if (def.type === 'enumeration' && def.fieldType !== 'booleancheckbox' && !(def.externalOptions ?? false)) {
    const allowed = (def.options ?? []).map((o) => o.value);
    // Owner ids and similar references carry no options in the definition; HubSpot checks them elsewhere.
    if (allowed.length === 0) return undefined;
    const values = def.fieldType === 'checkbox' ? value.split(';') : [value];
    const bad = values.find((v) => !allowed.includes(v));
    if (bad !== undefined) {
      return {
        name,
        code: 'INVALID_OPTION',
        message: `${bad} was not one of the allowed options: [${allowed
          .map((a) => `label: "${def.options?.find((o) => o.value === a)?.label ?? a}" value: "${a}"`)
          .slice(0, 10)
          .join(', ')}${allowed.length > 10 ? ', ...' : ''}]`,
      };
    }
  }
  return undefined;
}

/** The most characters HubSpot keeps in one property value. */
export const MAX_VALUE_LENGTH = 65_536;

export function validateProperties(
  definitions: ReadonlyMap<string, HubspotProperty>,
  values: Record<string, unknown>,
): PropertyProblem[] {
  const problems: PropertyProblem[] = [];
  for (const [name, raw] of Object.entries(values)) {
    const def = definitions.get(name);
    if (!def || def.archived) {
      problems.push({ name, code: 'PROPERTY_DOESNT_EXIST', message: `Property "${name}" does not exist` });
      continue;
    }
    if (def.modificationMetadata?.readOnlyValue || def.calculated) {
      problems.push({
        name,
        code: 'READ_ONLY_VALUE',
        message: `"${name}" is a read only property; its value cannot be set.`,
      });
      continue;
    }
    const value = raw === null || raw === undefined ? '' : String(raw);
    if (value.length > MAX_VALUE_LENGTH) {
      // HubSpot's limit for any property value (its knowledge base: "property field types").
      problems.push({
        name,
        code: 'INVALID_STRING_LENGTH',
        message: `Property "${name}" has a value of ${value.length} characters; the maximum is ${MAX_VALUE_LENGTH}.`,
      });
      continue;
    }
    const problem = checkValue(def, value);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** HubSpot's message format: "Property values were not valid: [json of the problems]". */
export function problemsMessage(problems: PropertyProblem[]): string {
  const detail = problems.map((p) => ({
    isValid: false,
    message: p.message,
    error: p.code,
    name: p.name,
    localizedErrorMessage: p.message,
  }));
  return `Property values were not valid: ${JSON.stringify(detail)}`;
}

/**
 * A portal's validation rule for one object: `property` must hold a value, always or only `when` another
 * property holds the given value (HubSpot's conditional required properties, e.g. `close_date` when
 * `dealstage` is `closedwon`).
 */
export interface ValidationRule {
  property: string;
  when?: { property: string; value: string };
}

/**
 * The rules a write breaks (HubSpot enforces them on API writes from API version 2026-09): on a create,
 * what its values leave empty; on an update, what the record would be left without (`current` is the
 * record's values before it), so an update of a record that already breaks a rule is refused too.
 */
export function ruleProblems(
  rules: readonly ValidationRule[],
  values: Record<string, unknown>,
  current?: ReadonlyMap<string, string>,
): PropertyProblem[] {
  const after = (name: string) => {
    const value = name in values ? values[name] : current?.get(name);
    return value === null || value === undefined ? '' : String(value).trim();
  };
  return rules
    .filter((rule) => after(rule.property) === '' && (!rule.when || after(rule.when.property) === rule.when.value))
    .map(({ property, when }) => ({
      name: property,
      code: 'REQUIRED_PROPERTY',
      message: when ? `${property} is required when ${when.property} is ${when.value}` : `${property} is required`,
    }));
}
