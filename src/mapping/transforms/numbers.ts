/** Transforms to numbers and dates. */
import { z } from 'zod';
import { defineTransform, describeKind } from './transform.js';
import type { ValueKind } from '../source-paths.js';

function oneValue(name: string, input: ValueKind, accepts: ValueKind['base'][]): string | undefined {
  if (input.list) return `${name} takes one value; add first before it (it gets ${describeKind(input)})`;
  if (input.base !== 'any' && !accepts.includes(input.base))
    return `${name} takes ${accepts.join(' or ')}, but gets ${describeKind(input)}`;
  return undefined;
}

const SUFFIX: Record<string, number> = { k: 1e3, m: 1e6, mm: 1e6, b: 1e9, bn: 1e9 };

/** Every number in a text such as "$1.5M - $10M" or "51-200", suffixes applied. */
export function numbersIn(text: string): number[] {
  const found: number[] = [];
  for (const match of text.replace(/(\d),(?=\d{3})/g, '$1').matchAll(/(\d+(?:\.\d+)?)\s*(bn|mm|[kmb])?\b/gi)) {
    const n = Number(match[1]) * (SUFFIX[(match[2] ?? '').toLowerCase()] ?? 1);
    if (Number.isFinite(n)) found.push(n);
  }
  return found;
}

export const number = defineTransform({
  name: 'number',
  summary: 'a number from a number or text; for a range such as "51-200" `pick` says low (default), high or mid',
  args: z.strictObject({ pick: z.enum(['low', 'high', 'mid']).default('low') }),
  infer: (input) => oneValue('number', input, ['string', 'number']) ?? { base: 'number', list: false },
  run(value, args) {
    if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
    if (typeof value !== 'string') return undefined;
    const found = numbersIn(value);
    if (found.length === 0) return undefined;
    const low = found[0]!;
    const high = found[found.length - 1]!;
    return args.pick === 'low' ? low : args.pick === 'high' ? high : (low + high) / 2;
  },
});

export const round = defineTransform({
  name: 'round',
  summary: 'the number rounded to `digits` decimals (default 0)',
  args: z.strictObject({ digits: z.number().int().min(0).max(6).default(0) }),
  infer: (input) => oneValue('round', input, ['number']) ?? { base: 'number', list: false },
  run(value, args) {
    if (typeof value !== 'number') return undefined;
    const factor = 10 ** args.digits;
    return Math.round(value * factor) / factor;
  },
});

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A UTC date from a year, epoch milliseconds, an ISO date or time, or the partner's "Mar '21" form. */
export function parseDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    return value >= 1000 && value <= 9999 && Number.isInteger(value)
      ? new Date(Date.UTC(value, 0, 1))
      : new Date(value);
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  let m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(text);
  if (m) return valid(new Date(Date.UTC(Number(m[1]), Number(m[2] ?? 1) - 1, Number(m[3] ?? 1))));
  m = /^([A-Za-z]{3})[a-z]*\.?\s+'?(\d{2}|\d{4})\b/.exec(text);
  if (m) {
    const month = MONTHS.indexOf(m[1]!.toLowerCase());
    if (month < 0) return undefined;
    const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    return new Date(Date.UTC(year, month, 1));
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) return valid(new Date(text));
  return undefined;
}

function valid(date: Date): Date | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export const date = defineTransform({
  name: 'date',
  summary: 'a date from a year, epoch milliseconds, YYYY-MM-DD, an ISO time or text such as "Mar \'21 - Present"',
  args: z.strictObject({}),
  infer: (input) => oneValue('date', input, ['string', 'number', 'date']) ?? { base: 'date', list: false },
  run: (value) => parseDate(value),
});

export const year = defineTransform({
  name: 'year',
  summary: 'the year of a date',
  args: z.strictObject({}),
  infer: (input) => oneValue('year', input, ['string', 'number', 'date']) ?? { base: 'number', list: false },
  run: (value) => parseDate(value)?.getUTCFullYear(),
});
