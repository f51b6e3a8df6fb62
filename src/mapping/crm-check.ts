/**
 * Checks a mapping against the CRM's own schema: every property it reads or writes exists, every
 * target is writable, and the target's type and picklist options accept what the mapping produces.
 */
import type { CrmProperty, PropertyType } from '../core/connector.js';
import type { CustomProperty, MappingDocument } from './format.js';
import { closest } from './nearest.js';
import { ProblemList, type MappingProblem } from './problems.js';
import type { ValueKind } from './source-paths.js';
import { analyseField } from './validate.js';

const TEXT_TYPES: ReadonlySet<PropertyType> = new Set(['string', 'text', 'phone', 'email', 'url']);

function describeValues(values: readonly string[]): string {
  const shown = values
    .slice(0, 8)
    .map((v) => `"${v}"`)
    .join(', ');
  return values.length > 8 ? `${shown}, ... (${values.length} in all)` : shown;
}

/** Whether `produced` fits `property`; a message saying what to change when it does not. */
function fit(produced: ValueKind, property: CrmProperty, path: (string | number)[], problems: ProblemList): void {
  const name = property.name;
  const domain = produced.domain;
  switch (property.type) {
    case 'enumeration': {
      const options = property.options ?? [];
      if (!domain) {
        problems.add(
          path,
          'type_mismatch',
          `${name} is a picklist (${describeValues(options)}) but this gives free text; add a value map (values:)`,
        );
        return;
      }
      for (const value of domain) {
        if (options.includes(value)) continue;
        const hint = closest(value, options);
        const help = hint ? `; did you mean "${hint}"?` : `; options: ${describeValues(options)}`;
        problems.add([...path, 'values'], 'option_not_allowed', `"${value}" is not an option of ${name}${help}`);
      }
      return;
    }
    case 'number':
      if (produced.base === 'number' || (domain && domain.every((v) => v.trim() !== '' && Number.isFinite(Number(v)))))
        return;
      problems.add(
        path,
        'type_mismatch',
        `${name} is a number property but this gives ${produced.base}; add the number transform`,
      );
      return;
    case 'date':
    case 'datetime':
      if (produced.base === 'date') return;
      problems.add(
        path,
        'type_mismatch',
        `${name} is a ${property.type} property but this gives ${produced.base}; add the date transform`,
      );
      return;
    case 'bool':
      if (produced.base === 'boolean' || (domain && domain.every((v) => v === 'true' || v === 'false'))) return;
      problems.add(
        path,
        'type_mismatch',
        `${name} is a true/false property but this gives ${produced.base}; map the values to "true" and "false"`,
      );
      return;
    default:
      if (TEXT_TYPES.has(property.type) && domain && property.maxLength !== undefined) {
        for (const value of domain) {
          if (value.length > property.maxLength)
            problems.add(
              path,
              'too_long',
              `"${value}" is longer than the ${property.maxLength} characters ${name} holds`,
            );
        }
      }
  }
}

function checkTarget(
  target: string,
  custom: CustomProperty | undefined,
  produced: ValueKind | undefined,
  byName: ReadonlyMap<string, CrmProperty>,
  path: (string | number)[],
  problems: ProblemList,
  notFound: (name: string, hint: string | undefined) => string = (name, hint) =>
    `the CRM has no property "${name}"${hint ? `; did you mean "${hint}"?` : ''}`,
): void {
  const property = byName.get(target);
  if (!property) {
    // A declared custom property that is not there yet is provisioned, not an error.
    if (custom) return;
    problems.add([...path, 'target'], 'unknown_property', notFound(target, closest(target, byName.keys())));
    return;
  }
  if (!property.writable) {
    problems.add(
      [...path, 'target'],
      'read_only_property',
      `${target} is read-only in the CRM; choose a writable property`,
    );
    return;
  }
  if (custom && !sameKind(custom.type, property.type)) {
    problems.add(
      [...path, 'custom', 'type'],
      'type_mismatch',
      `${target} exists as ${property.type} but the mapping declares ${custom.type}; make them agree`,
    );
  }
  if (produced) fit(produced, property, path, problems);
}

export function checkAgainstCrm(
  doc: MappingDocument,
  properties: readonly CrmProperty[],
  file: string,
): MappingProblem[] {
  const problems = new ProblemList(file);
  const byName = new Map(properties.map((p) => [p.name, p]));
  const declared = new Set(
    [
      ...doc.fields,
      ...(doc.static ?? []),
      ...(doc.enriched_at ? [doc.enriched_at] : []),
      ...[doc.discovery?.source, doc.discovery?.persona].filter((d) => d !== undefined),
    ]
      .filter((f) => f.custom)
      .map((f) => f.target),
  );
  // Salesforce leaves out of describe the fields the integration user has no field-level access to:
  // such a field looks missing, and every write naming it would fail, so the problem says both.
  const notFound = (name: string, hint: string | undefined) =>
    doc.crm === 'salesforce'
      ? `Salesforce does not show ${doc.object} field "${name}" to the integration user: it does not ` +
        `exist${hint ? ` (did you mean "${hint}"?)` : ''}, or the user lacks field-level access to it (Setup ` +
        `> Object Manager > ${doc.object} > Fields & Relationships > ${name} > Set Field-Level Security: ` +
        "Visible for the integration user's profile or permission set)"
      : `the CRM has no property "${name}"${hint ? `; did you mean "${hint}"?` : ''}`;
  const mustExist = (name: string, path: (string | number)[]) => {
    if (byName.has(name) || declared.has(name)) return;
    problems.add(path, 'unknown_property', notFound(name, closest(name, byName.keys())));
  };
  doc.match.forEach((rule, i) => mustExist(rule.property, ['match', i, 'property']));
  if (doc.market.property) mustExist(doc.market.property, ['market', 'property']);

  const scratch = new ProblemList(file);
  for (const field of doc.fields) {
    const { output } = analyseField(doc.source, field, [], scratch);
    checkTarget(field.target, field.custom, output, byName, ['fields', field.target], problems, notFound);
  }
  for (const item of doc.static ?? []) {
    checkTarget(
      item.target,
      item.custom,
      { base: 'string', list: false, domain: [item.value] },
      byName,
      ['static', item.target],
      problems,
      notFound,
    );
  }
  if (doc.enriched_at) {
    checkTarget(
      doc.enriched_at.target,
      doc.enriched_at.custom,
      { base: 'date', list: false },
      byName,
      ['enriched_at'],
      problems,
    );
  }
  const { source, persona } = doc.discovery ?? {};
  if (source)
    checkTarget(
      source.target,
      source.custom,
      { base: 'string', list: false, domain: [source.value] },
      byName,
      ['discovery', 'source'],
      problems,
    );
  if (persona)
    checkTarget(
      persona.target,
      persona.custom,
      { base: 'string', list: false },
      byName,
      ['discovery', 'persona'],
      problems,
    );
  return problems.items;
}

/** Text the CRM stores as plain text: HubSpot has no e-mail or URL property type, only string. */
const TEXTUAL: ReadonlySet<string> = new Set(['string', 'text', 'email', 'url', 'phone']);

function sameKind(declared: string, existing: string): boolean {
  return declared === existing || (TEXTUAL.has(declared) && (existing === 'string' || existing === 'text'));
}
