/** Transforms that turn a list into one value: first, last, join and the e-mail and phone picks. */
import { z } from 'zod';
import { defineTransform, describeKind, entryValue, isEntry, isScalar } from './transform.js';
import type { ValueKind } from '../source-paths.js';

const noArgs = z.strictObject({});

function single(input: ValueKind): ValueKind {
  if (isEntry(input)) return { base: 'string', list: false, ...(input.base === 'phone_entry' ? { phone: true } : {}) };
  return { ...input, list: false };
}

const firstOrLast = (name: 'first' | 'last') =>
  defineTransform({
    name,
    summary: `the ${name} value of a list`,
    args: noArgs,
    infer: (input) => (input.list ? single(input) : `${name} takes a list, but gets ${describeKind(input)}`),
    run(value) {
      if (!Array.isArray(value)) return value;
      const list = value as unknown[];
      const ordered = name === 'first' ? list : [...list].reverse();
      for (const item of ordered) {
        const v = typeof item === 'object' && item !== null ? entryValue(item) : item;
        if (v !== undefined && v !== null && v !== '') return v;
      }
      return undefined;
    },
  });

export const first = firstOrLast('first');
export const last = firstOrLast('last');

export const join = defineTransform({
  name: 'join',
  summary: 'the values of a list joined into one text',
  args: z.strictObject({ separator: z.string().max(10).default(', ') }),
  infer: (input) =>
    input.list && (isScalar(input) || isEntry(input))
      ? { base: 'string', list: false }
      : `join takes a list of values, but gets ${describeKind(input)}`,
  run(value, args) {
    if (!Array.isArray(value)) return value;
    let joined: string | undefined;
    // infer admits lists of single values or of entries only.
    for (const item of value as unknown[]) {
      const v = typeof item === 'object' && item !== null ? entryValue(item) : (item as string | number | boolean);
      if (v === undefined || v === null || v === '') continue;
      joined = joined === undefined ? String(v) : joined + args.separator + String(v);
    }
    return joined;
  },
});

const DELIVERABILITY_ORDER = (status: string | undefined): number => {
  const s = (status ?? '').toLowerCase();
  if (s === 'deliverable' || s === 'valid') return 0;
  if (s === 'undeliverable' || s === 'invalid') return 2;
  return 1;
};

export const pickEmail = defineTransform({
  name: 'pick_email',
  summary: 'the most deliverable e-mail address: deliverable before risky, never undeliverable unless allowed',
  args: z.strictObject({ allow_risky: z.boolean().default(true), allow_undeliverable: z.boolean().default(false) }),
  infer: (input) =>
    input.list && input.base === 'email_entry'
      ? { base: 'string', list: false }
      : `pick_email takes a list of e-mail entries (such as emails.work), but gets ${describeKind(input)}`,
  run(value, args) {
    if (!Array.isArray(value)) return undefined;
    let best: string | undefined;
    let bestRank = 3;
    for (const entry of value as { value?: unknown; deliverability?: string }[]) {
      if (typeof entry?.value !== 'string' || entry.value === '') continue;
      const rank = DELIVERABILITY_ORDER(entry.deliverability);
      if (rank === 1 && !args.allow_risky) continue;
      if (rank === 2 && !args.allow_undeliverable) continue;
      if (rank < bestRank) {
        best = entry.value;
        bestRank = rank;
      }
    }
    return best;
  },
});

const digits = (phone: string): string => phone.replace(/\D/g, '');

export const pickPhone = defineTransform({
  name: 'pick_phone',
  summary:
    'the first phone number that is not do-not-disturb (unless the field sets allow_dnd); ' +
    'kind mobile keeps numbers listed in current_company.mobile_phones, kind main keeps the others',
  args: z.strictObject({ kind: z.enum(['any', 'mobile', 'main']).default('any') }),
  infer: (input) =>
    input.list && (input.base === 'phone_entry' || input.phone)
      ? { base: 'string', list: false, phone: true }
      : `pick_phone takes a list of phone numbers (such as phones), but gets ${describeKind(input)}`,
  run(value, args, context) {
    if (!Array.isArray(value)) return undefined;
    let mobiles: string[] | undefined;
    if (args.kind !== 'any') {
      const company = context.root.current_company as { mobile_phones?: unknown } | undefined;
      const listed = Array.isArray(company?.mobile_phones) ? (company.mobile_phones as unknown[]) : [];
      mobiles = listed.filter((p): p is string => typeof p === 'string').map(digits);
    }
    for (const item of value) {
      const phone = entryValue(item);
      if (!phone) continue;
      if (mobiles && (mobiles.length > 0 && mobiles.includes(digits(phone))) !== (args.kind === 'mobile')) continue;
      return phone;
    }
    return undefined;
  },
});
