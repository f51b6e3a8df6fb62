/**
 * Compiles a validated mapping once into plain functions: partner record -> CRM property values
 * (strings as the CRM expects them), CRM record -> ordered lookup keys and market.
 */
import type { CrmProperty } from '../core/connector.js';
import type { Market } from '../partner/schemas.js';
import { checkAgainstCrm } from './crm-check.js';
import { DEFAULT_RULE, type LookupKind, type MappingDocument, type Rule } from './format.js';
import { formatValue } from './format-value.js';
import { resolveMatchValue } from './match-keys.js';
import { marketOfKeys, toMarket } from './markets.js';
import { MappingError, ProblemList } from './problems.js';
import { compilePath } from './resolve-path.js';
import { lookupSourcePath, type SourceKind } from './source-paths.js';
import type { TransformContext } from './transforms/transform.js';
import { analyseField, validateDocument } from './validate.js';

export interface MatchKey {
  by: LookupKind;
  value: string;
  /** The CRM property it came from. */
  property: string;
}

export type CrmValues = Readonly<Record<string, string | null | undefined>>;

export interface CompiledMapping {
  readonly crm: MappingDocument['crm'];
  /** The longest value the CRM takes in a property (HubSpot: 65,536 characters), when it has one limit. */
  readonly maxValueLength?: number;
  readonly object: string;
  readonly source: SourceKind;
  readonly document: MappingDocument;
  /** Lookup identifiers in the order the mapping gives, normalised, empty ones left out. */
  matchKeys(record: CrmValues): MatchKey[];
  /**
   * The record's market: its country property; else the country its match keys name (a `.co.nz` e-mail
   * or website, an ABN); else `fallback` (e.g. the market of the person who led to a company); else the default.
   */
  market(record: CrmValues, fallback?: Market): Market;
  /** Person mappings: how to find the person's company at the partner, when the record says. */
  companyKey(partner: Record<string, unknown>): { by: LookupKind; value: string } | undefined;
  /** Property values for one partner record; properties without a value are left out. */
  map(partner: Record<string, unknown>): Record<string, string>;
  /** The write rule of every target property. */
  readonly rules: Readonly<Record<string, Rule>>;
  readonly stampProperty?: string;
  /** The enriched-at stamp value for a time, formatted for the stamp property. */
  stampValue(at: Date): string;
  /** Everything to read from the CRM before planning: match and market properties and every target. */
  readonly propertiesToRead: readonly string[];
}

type FieldRunner = (partner: Record<string, unknown>, out: Record<string, string>, context: TransformContext) => void;

export function compileMapping(
  doc: MappingDocument,
  crmSchema?: readonly CrmProperty[],
  file = `${doc.crm}/${doc.object}`,
): CompiledMapping {
  const problems = [...validateDocument(doc, file), ...(crmSchema ? checkAgainstCrm(doc, crmSchema, file) : [])];
  if (problems.length) throw new MappingError(problems);
  const source = doc.source;
  const byName = new Map((crmSchema ?? []).map((p) => [p.name, p]));

  const runners: FieldRunner[] = doc.fields.map((field) => {
    const { steps } = analyseField(source, field, [], new ProblemList(file));
    const found = lookupSourcePath(source, field.from);
    const read = compilePath(field.from, found.ok ? found.kind : undefined, field.allow_dnd === true);
    const values = field.values ? new Map(Object.entries(field.values)) : undefined;
    const property = byName.get(field.target) ?? customAsProperty(field.target, field.custom);
    const target = field.target;
    const fallback = field.default;
    return (partner, out, context) => {
      let value = read(partner);
      if (steps.length && value !== undefined && value !== null) {
        for (const s of steps) {
          value = s.transform.run(value, s.args, context);
          if (value === undefined || value === null) break;
        }
      }
      // A value map is keyed by single values (validation makes a list one value first); anything else
      // is left for formatValue, which writes nothing for it.
      if (values && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'))
        value = values.get(String(value));
      let text = formatValue(value, property);
      if (text === undefined && fallback !== undefined) text = formatValue(fallback, property);
      if (text !== undefined) out[target] = text;
    };
  });
  const statics = (doc.static ?? []).map((s) => [s.target, s.value] as const);

  const rules: Record<string, Rule> = Object.create(null) as Record<string, Rule>;
  for (const f of doc.fields) rules[f.target] = f.rule ?? DEFAULT_RULE;
  for (const s of doc.static ?? []) rules[s.target] = s.rule ?? DEFAULT_RULE;

  const stampProperty = doc.enriched_at?.target;
  const stampTarget = stampProperty
    ? (byName.get(stampProperty) ?? customAsProperty(stampProperty, doc.enriched_at?.custom))
    : undefined;
  const companyRead = doc.company ? compilePath(doc.company.from, undefined, true) : undefined;

  const propertiesToRead = [
    ...new Set([
      ...doc.match.map((m) => m.property),
      ...(doc.market.property ? [doc.market.property] : []),
      ...Object.keys(rules),
      ...(stampProperty ? [stampProperty] : []),
    ]),
  ];

  function matchKeys(record: CrmValues): MatchKey[] {
    const keys: MatchKey[] = [];
    for (const rule of doc.match) {
      const raw = Object.hasOwn(record, rule.property) ? record[rule.property] : undefined;
      const value = resolveMatchValue(rule.by, raw);
      if (value !== undefined && !keys.some((k) => k.by === rule.by && k.value === value))
        keys.push({ by: rule.by, value, property: rule.property });
    }
    return keys;
  }

  return {
    crm: doc.crm,
    ...(MAX_VALUE_LENGTH[doc.crm] ? { maxValueLength: MAX_VALUE_LENGTH[doc.crm] } : {}),
    object: doc.object,
    source,
    document: doc,
    rules,
    ...(stampProperty ? { stampProperty } : {}),
    propertiesToRead,
    matchKeys,
    market(record, fallback) {
      const raw =
        doc.market.property && Object.hasOwn(record, doc.market.property) ? record[doc.market.property] : undefined;
      // The CRM's country first; with none, what the record's own keys say (a .co.nz address) before the
      // hint and the default, so a New Zealander is not asked for, and filed, as an Australian.
      return toMarket(raw) ?? marketOfKeys(matchKeys(record)) ?? fallback ?? doc.market.default;
    },
    companyKey(partner) {
      if (!doc.company || !companyRead) return undefined;
      const value = resolveMatchValue(doc.company.by, companyRead(partner));
      return value === undefined ? undefined : { by: doc.company.by, value };
    },
    map(partner) {
      const out: Record<string, string> = {};
      const context: TransformContext = { root: partner };
      for (const run of runners) run(partner, out, context);
      for (const [target, value] of statics) out[target] = value;
      return out;
    },
    stampValue(at) {
      const iso = at.toISOString();
      return stampTarget?.type === 'date' ? iso.slice(0, 10) : iso;
    },
  };
}

function customAsProperty(
  name: string,
  custom: { label: string; type: CrmProperty['type']; max_length?: number; options?: string[] } | undefined,
): CrmProperty | undefined {
  if (!custom) return undefined;
  return {
    name,
    label: custom.label,
    type: custom.type,
    writable: true,
    custom: true,
    ...(custom.max_length !== undefined ? { maxLength: custom.max_length } : {}),
    ...(custom.options ? { options: custom.options } : {}),
  };
}

/** HubSpot refuses a property value over 65,536 characters; Salesforce's limit is each field's own length. */
const MAX_VALUE_LENGTH: Partial<Record<string, number>> = { hubspot: 65_536 };
