/**
 * Checks of one well-formed mapping that need more than its shape: source paths against the partner
 * schemas, transforms against the registry, value maps against what the source can produce, duplicate
 * targets, match kinds, and custom property declarations.
 */
import {
  COMPANY_LOOKUPS,
  PERSON_LOOKUPS,
  type FieldMapping,
  type MappingDocument,
  type TransformStep,
} from './format.js';
import { ProblemList, type MappingProblem } from './problems.js';
import { lookupSourcePath, type SourceKind, type ValueKind } from './source-paths.js';
import { TRANSFORMS } from './transforms/registry.js';
import { describeKind, type Transform } from './transforms/transform.js';
import { closest } from './nearest.js';

export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const OBJECTS: Record<MappingDocument['crm'], Record<string, SourceKind>> = {
  hubspot: { contact: 'person', company: 'company' },
  salesforce: { Contact: 'person', Lead: 'person', Account: 'company' },
};

export interface ResolvedStep {
  transform: Transform;
  args: unknown;
}

export interface FieldAnalysis {
  steps: ResolvedStep[];
  /** What the field produces after transforms and value map; undefined when it cannot be worked out. */
  output?: ValueKind;
}

function stepName(step: TransformStep): string {
  return typeof step === 'string' ? step : step.name;
}

/** Resolves a field's source and transforms, reporting each problem under `path`. */
export function analyseField(
  source: SourceKind,
  field: FieldMapping,
  path: (string | number)[],
  problems: ProblemList,
): FieldAnalysis {
  const steps: ResolvedStep[] = [];
  const segments = field.from.split('.');
  const forbidden = segments.find((s) => FORBIDDEN_SEGMENTS.has(s));
  if (forbidden) {
    problems.add([...path, 'from'], 'forbidden_key', `"${forbidden}" cannot appear in a source path`);
    return { steps };
  }
  const found = lookupSourcePath(source, field.from);
  if (!found.ok) {
    const hint = found.suggestion ? `; did you mean "${found.suggestion}"?` : '';
    problems.add(
      [...path, 'from'],
      'unknown_source_path',
      `"${field.from}" is not a field of the partner ${source} record${hint}`,
    );
  }
  let kind: ValueKind | undefined = found.ok ? found.kind : undefined;
  const list =
    field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];
  list.forEach((step, i) => {
    const stepPath = [...path, 'transform', ...(Array.isArray(field.transform) ? [i] : [])];
    const name = stepName(step);
    const transform = TRANSFORMS.get(name);
    if (!transform) {
      const hint = closest(name, TRANSFORMS.keys());
      problems.add(
        stepPath,
        'unknown_transform',
        `unknown transform "${name}"${hint ? `; did you mean "${hint}"?` : ''}; known: ` +
          `${[...TRANSFORMS.keys()].join(', ')}`,
      );
      kind = undefined;
      return;
    }
    const args = transform.args.safeParse(typeof step === 'string' ? {} : (step.args ?? {}));
    if (!args.success) {
      const detail = args.error.issues
        .map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`)
        .join('; ');
      problems.add([...stepPath, 'args'], 'bad_transform_args', `bad arguments for ${name}: ${detail}`);
      kind = undefined;
      return;
    }
    steps.push({ transform, args: args.data });
    if (!kind) return;
    const next = transform.infer(kind, args.data);
    if (typeof next === 'string') {
      problems.add(stepPath, 'transform_input', next);
      kind = undefined;
    } else kind = next;
  });
  if (!kind) return { steps };
  if (kind.list || kind.base === 'object' || kind.base === 'email_entry' || kind.base === 'phone_entry') {
    problems.add(
      [...path, 'from'],
      'list_needs_transform',
      `"${field.from}" gives ${describeKind(kind)}; add a transform that makes one value (first, join, ` +
        'pick_email, pick_phone) or name a key inside it',
    );
    return { steps };
  }
  if (field.values) {
    checkValueKeys(kind, field.values, [...path, 'values'], problems);
    return {
      steps,
      output: {
        base: 'string',
        list: false,
        domain: [...new Set([...Object.values(field.values), ...(field.default !== undefined ? [field.default] : [])])],
      },
    };
  }
  if (field.default !== undefined && kind.domain)
    return { steps, output: { ...kind, domain: [...new Set([...kind.domain, field.default])] } };
  return { steps, output: kind };
}

function checkValueKeys(
  kind: ValueKind,
  values: Record<string, string>,
  path: (string | number)[],
  problems: ProblemList,
): void {
  for (const key of Object.keys(values)) {
    let reason: string | undefined;
    if (kind.domain && !kind.domain.includes(key)) {
      const hint = closest(key, kind.domain);
      reason =
        'the source only produces ' +
        `${kind.domain.map((d) => `"${d}"`).join(', ')}${hint ? `; did you mean "${hint}"?` : ''}`;
    } else if (kind.base === 'number' && !Number.isFinite(Number(key))) reason = 'the source produces numbers';
    else if (kind.base === 'boolean' && key !== 'true' && key !== 'false') reason = 'the source produces true or false';
    if (reason) problems.add([...path, key], 'impossible_value_key', `"${key}" can never match: ${reason}`);
  }
}

function checkCustom(
  doc: MappingDocument,
  target: string,
  custom: FieldMapping['custom'],
  path: (string | number)[],
  problems: ProblemList,
): void {
  const looksCustom = doc.crm === 'hubspot' ? target.startsWith('crm_enrich_') : /^CE_[A-Za-z0-9_]+__c$/.test(target);
  const expected = doc.crm === 'hubspot' ? 'start with crm_enrich_' : 'have the form CE_<Name>__c';
  if (custom && !looksCustom)
    problems.add(
      [...path, 'target'],
      'custom_property',
      `a property this project creates must ${expected}; rename "${target}"`,
    );
  if (!custom && looksCustom)
    problems.add(
      path,
      'custom_property',
      `"${target}" is one of ours; declare it under custom (label, type) so it can be created`,
    );
  if (custom?.type === 'enumeration' && !custom.options)
    problems.add([...path, 'custom', 'options'], 'custom_property', 'an enumeration needs its options');
  if (custom?.options && custom.type !== 'enumeration')
    problems.add([...path, 'custom', 'options'], 'custom_property', 'options are only for type enumeration');
}

export function validateDocument(doc: MappingDocument, file: string): MappingProblem[] {
  const problems = new ProblemList(file);
  const objects = OBJECTS[doc.crm];
  const expectedSource = objects[doc.object];
  if (!expectedSource) {
    problems.add(
      ['object'],
      'invalid_value',
      `${doc.crm} has no object "${doc.object}" here; use one of ${Object.keys(objects).join(', ')}`,
    );
  } else if (expectedSource !== doc.source) {
    problems.add(
      ['source'],
      'invalid_value',
      `${doc.crm} ${doc.object} records are enriched from a partner ${expectedSource}, not a ${doc.source}`,
    );
  }
  const lookups: readonly string[] = doc.source === 'person' ? PERSON_LOOKUPS : COMPANY_LOOKUPS;
  doc.match.forEach((rule, i) => {
    if (!lookups.includes(rule.by))
      problems.add(
        ['match', i, 'by'],
        'bad_match',
        `a ${doc.source} cannot be looked up by ${rule.by}; use one of ${lookups.join(', ')}`,
      );
  });
  if (doc.company) {
    if (doc.source !== 'person') problems.add(['company'], 'bad_match', 'company is only for person mappings');
    else analyseField('person', { target: 'company', from: doc.company.from }, ['company'], problems);
  }

  const seen = new Map<string, string>();
  const claim = (target: string, where: string, path: (string | number)[]) => {
    const before = seen.get(target);
    if (before)
      problems.add(
        path,
        'duplicate_target',
        `"${target}" is already filled by ${before}; each property may be filled once`,
      );
    else seen.set(target, where);
  };
  doc.fields.forEach((field, i) => {
    const path = ['fields', seen.has(field.target) ? i : field.target];
    claim(field.target, `fields > ${field.target}`, path);
    checkCustom(doc, field.target, field.custom, path, problems);
    analyseField(doc.source, field, path, problems);
  });
  (doc.static ?? []).forEach((item, i) => {
    const path = ['static', seen.has(item.target) ? i : item.target];
    claim(item.target, `static > ${item.target}`, path);
    checkCustom(doc, item.target, item.custom, path, problems);
  });
  if (doc.enriched_at) {
    claim(doc.enriched_at.target, 'enriched_at', ['enriched_at', 'target']);
    checkCustom(doc, doc.enriched_at.target, doc.enriched_at.custom, ['enriched_at'], problems);
  }
  const { source, persona } = doc.discovery ?? {};
  if (source) {
    if (doc.source !== 'person')
      problems.add(
        ['discovery', 'source'],
        'invalid_value',
        'discovery.source is for person mappings: it tags the people discovery creates',
      );
    claim(source.target, 'discovery > source', ['discovery', 'source', 'target']);
    checkCustom(doc, source.target, source.custom, ['discovery', 'source'], problems);
  }
  if (persona) {
    if (doc.source !== 'company')
      problems.add(
        ['discovery', 'persona'],
        'invalid_value',
        'discovery.persona is for company mappings: it names the persona to look for at a company',
      );
    claim(persona.target, 'discovery > persona', ['discovery', 'persona', 'target']);
    checkCustom(doc, persona.target, persona.custom, ['discovery', 'persona'], problems);
  }
  return problems.items;
}
