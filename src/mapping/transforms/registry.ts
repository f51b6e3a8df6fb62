/**
 * The named transforms a mapping file may use. Logic beyond a field map lives here, in TypeScript,
 * never in expressions inside the YAML.
 */
import { first, join, last, pickEmail, pickPhone } from './lists.js';
import { date, number, round, year } from './numbers.js';
import { domainFromUrl, lowercase, market, trim, truncate, uppercase, urlFromHandle } from './text.js';
import type { Transform } from './transform.js';

export const TRANSFORMS: ReadonlyMap<string, Transform> = new Map(
  [
    first,
    last,
    join,
    pickEmail,
    pickPhone,
    lowercase,
    uppercase,
    trim,
    truncate,
    domainFromUrl,
    urlFromHandle,
    market,
    number,
    round,
    date,
    year,
  ].map((t) => [t.name, t]),
);
