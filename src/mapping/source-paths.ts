/**
 * Every path a mapping may read from a partner record, found by walking the partner zod schemas, so a
 * field the provider schema gains is mappable at once and a typo is caught with a suggestion.
 */
import type { z } from 'zod';
import { Company, DEPARTMENTS, Person, SENIORITIES } from '../partner/schemas.js';
import { closest } from './nearest.js';

/** What a value is, as far as validation can tell before seeing data. */
export interface ValueKind {
  base: 'string' | 'number' | 'boolean' | 'date' | 'email_entry' | 'phone_entry' | 'object' | 'any';
  list: boolean;
  /** Every value the source can produce, when that set is known (seniority names, ...). */
  domain?: readonly string[];
  /** Values are phone numbers: numbers marked do-not-disturb are dropped unless a field allows them. */
  phone?: boolean;
}

export type SourceKind = 'person' | 'company';

const DOMAINS: Record<string, readonly string[]> = {
  'person:seniority': Object.values(SENIORITIES),
  'person:secondary_position.seniority': Object.values(SENIORITIES),
  'person:department': Object.values(DEPARTMENTS),
  'person:secondary_position.department': Object.values(DEPARTMENTS),
};

const PHONE_PATHS = new Set([
  'person:phones.value',
  'person:current_company.main_phones',
  'person:current_company.other_phones',
  'person:current_company.mobile_phones',
  'company:phones',
]);

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def;

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (defOf(s).type === 'optional' || defOf(s).type === 'nullable') s = defOf(s).innerType!;
  return s;
}

function scalarBase(schema: z.ZodType): ValueKind['base'] {
  const def = defOf(schema);
  if (def.type === 'string') return 'string';
  if (def.type === 'number') return 'number';
  if (def.type === 'boolean') return 'boolean';
  if (def.type === 'union') {
    const bases = new Set((def.options ?? []).map((o) => scalarBase(unwrap(o))));
    return bases.size === 1 ? [...bases][0]! : bases.has('string') ? 'string' : 'any';
  }
  return 'any';
}

export interface SourceCatalog {
  kind: SourceKind;
  paths: ReadonlyMap<string, ValueKind>;
  /** Prefixes under which any key is valid (free-form records such as traffic share by country). */
  openPrefixes: readonly string[];
}

function walk(
  kind: SourceKind,
  schema: z.ZodType,
  prefix: string,
  list: boolean,
  out: Map<string, ValueKind>,
  open: string[],
): void {
  const s = unwrap(schema);
  const def = defOf(s);
  if (def.type === 'array') {
    walk(kind, def.element!, prefix, true, out, open);
    return;
  }
  if (def.type === 'object') {
    if (prefix) out.set(prefix, { base: objectBase(kind, prefix), list });
    for (const [key, child] of Object.entries(def.shape ?? {}))
      walk(kind, child, prefix ? `${prefix}.${key}` : key, list, out, open);
    return;
  }
  if (def.type === 'record') {
    out.set(prefix, { base: 'object', list });
    open.push(prefix);
    return;
  }
  const valueKind: ValueKind = { base: scalarBase(s), list };
  const domain = DOMAINS[`${kind}:${prefix}`];
  if (domain) valueKind.domain = domain;
  if (PHONE_PATHS.has(`${kind}:${prefix}`)) valueKind.phone = true;
  out.set(prefix, valueKind);
}

function objectBase(kind: SourceKind, path: string): ValueKind['base'] {
  if (kind === 'person' && (path === 'emails.work' || path === 'emails.personal')) return 'email_entry';
  if (kind === 'person' && path === 'phones') return 'phone_entry';
  return 'object';
}

function build(kind: SourceKind, schema: z.ZodType): SourceCatalog {
  const paths = new Map<string, ValueKind>();
  const open: string[] = [];
  walk(kind, schema, '', false, paths, open);
  return { kind, paths, openPrefixes: open };
}

const CATALOGS: Record<SourceKind, SourceCatalog> = {
  person: build('person', Person),
  company: build('company', Company),
};

export function sourceCatalog(kind: SourceKind): SourceCatalog {
  return CATALOGS[kind];
}

export type PathLookup = { ok: true; kind: ValueKind } | { ok: false; suggestion?: string };

export function lookupSourcePath(kind: SourceKind, path: string): PathLookup {
  const catalog = CATALOGS[kind];
  const found = catalog.paths.get(path);
  if (found) return { ok: true, kind: found };
  for (const prefix of catalog.openPrefixes) {
    if (path.startsWith(`${prefix}.`))
      return { ok: true, kind: { base: 'any', list: catalog.paths.get(prefix)?.list ?? false } };
  }
  return { ok: false, suggestion: closest(path, [...catalog.paths.keys()]) };
}
