/**
 * Which columns of a file stand for which of the mapping's match properties (and its market property),
 * read from the header: a column named like the property itself, like the kind of key it holds
 * (`work_email`, `fqdn`, `ln_url`), or by a common name (`Email`, `E-mail address`, `Domain`, `Website`,
 * `LinkedIn`, `Country`). `--map header=key` names a column's key where the header says nothing usable.
 * A row becomes the CRM values the mapping reads its match keys from, so a file row is matched exactly
 * as a CRM record with the same values would be.
 */
import { AppError } from '../../../core/errors.js';
import type { CompiledMapping } from '../../../mapping/compile.js';

export class FileColumnsError extends AppError {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super('invalid_file_columns', message, 'permanent', { field });
  }
}

/** Lower case, letters and digits only: `E-mail Address` and `email_address` are one name. */
const normal = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Common header names, by the kind of key (or `country`) they hold. */
const COMMON_NAMES: Record<string, readonly string[]> = {
  work_email: ['email', 'emailaddress', 'mail', 'workemail', 'businessemail', 'workemailaddress'],
  personal_email: ['personalemail', 'privateemail'],
  fqdn: ['domain', 'companydomain', 'domainname', 'emaildomain'],
  website: ['website', 'companywebsite', 'url', 'web', 'homepage', 'site'],
  ln_url: ['linkedin', 'linkedinurl', 'linkedinprofile', 'linkedinprofileurl', 'linkedincompanypage', 'profileurl'],
  ln_slug: ['linkedinslug', 'linkedinhandle'],
  abn: ['abn', 'businessnumber'],
  id: ['partnerid'],
  country: ['country', 'market', 'countrycode'],
};

export interface FileColumns {
  /** Per column of the file, the CRM property it stands for, or undefined for a column kept as it is. */
  properties: (string | undefined)[];
}

/**
 * The property each key word names in this mapping: its own match and market properties, each kind of
 * key the mapping is matched by, and `email`, `domain`, `linkedin`, `country` as the first it has of those.
 */
function keyWords(mapping: CompiledMapping): Map<string, string> {
  const words = new Map<string, string>();
  const doc = mapping.document;
  for (const rule of doc.match) {
    words.set(normal(rule.property), rule.property);
    if (!words.has(rule.by)) words.set(rule.by, rule.property);
  }
  const market = doc.market.property;
  if (market) {
    words.set(normal(market), market);
    words.set('country', market);
  }
  const firstOf = (...kinds: string[]) => kinds.map((k) => words.get(k)).find((p) => p !== undefined);
  const aliases: [string, string | undefined][] = [
    ['email', firstOf('work_email', 'personal_email')],
    ['domain', firstOf('fqdn', 'website')],
    ['website', firstOf('website', 'fqdn')],
    ['linkedin', firstOf('ln_url', 'ln_slug')],
  ];
  for (const [word, property] of aliases) if (property && !words.has(word)) words.set(word, property);
  return words;
}

/** The property a header names by a common name, or undefined. */
function byCommonName(header: string, words: Map<string, string>): string | undefined {
  const name = normal(header);
  const direct = words.get(name);
  if (direct) return direct;
  for (const [kind, names] of Object.entries(COMMON_NAMES)) {
    if (!names.includes(name)) continue;
    const property =
      words.get(kind) ??
      (kind === 'work_email' || kind === 'personal_email' ? words.get('email') : undefined) ??
      (kind === 'fqdn' || kind === 'website' ? words.get('domain') : undefined) ??
      (kind === 'ln_url' || kind === 'ln_slug' ? words.get('linkedin') : undefined);
    if (property) return property;
  }
  return undefined;
}

/** Parses `header=key` options into a header -> key word map, refusing what cannot be read. */
export function parseColumnMap(entries: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    const header = entry.slice(0, at).trim();
    const key = entry.slice(at + 1).trim();
    if (at <= 0 || !header || !key)
      throw new FileColumnsError(`map: "${entry}" is not header=key (e.g. "E-mail Address=email")`, 'map');
    map.set(header, key);
  }
  return map;
}

/**
 * The columns of a file with this header, for this mapping. Throws FileColumnsError naming a header
 * of `map` the file does not have, a key word the mapping does not know, and a file none of whose
 * columns holds a match key.
 */
export function fileColumns(
  header: readonly string[],
  mapping: CompiledMapping,
  map: Map<string, string>,
): FileColumns {
  const words = keyWords(mapping);
  for (const name of map.keys()) {
    if (!header.includes(name))
      throw new FileColumnsError(`map: the file has no column "${name}"; its columns: ${header.join(', ')}`, 'map');
  }
  const properties = header.map((name) => {
    const asked = map.get(name);
    if (asked === undefined) return byCommonName(name, words);
    const property = words.get(normal(asked)) ?? words.get(asked);
    if (!property)
      throw new FileColumnsError(
        `map: "${asked}" is no match key of ${mapping.crm} ${mapping.object}; use one of ` +
          `${[...new Set(words.keys())].join(', ')}`,
        'map',
      );
    return property;
  });
  const matchProperties = new Set(mapping.document.match.map((m) => m.property));
  if (!properties.some((p) => p !== undefined && matchProperties.has(p)))
    throw new FileColumnsError(
      `no column of the file holds a match key of ${mapping.crm} ${mapping.object} ` +
        `(${[...matchProperties].join(', ')}); name one in the header or with --map header=key`,
      'map',
    );
  return { properties };
}

/** The CRM values one row stands for: each mapped column's value under its property (the first non-empty wins). */
export function rowValues(columns: FileColumns, fields: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  columns.properties.forEach((property, i) => {
    const value = fields[i]?.trim();
    if (property && value && !values[property]) values[property] = value;
  });
  return values;
}
