/**
 * Normalises the identifiers read from CRM properties into the partner's lookup keys, so the same
 * person typed two ways is one lookup (and one cache entry).
 */
import type { LookupKind } from './format.js';
import { domainOf } from '../core/domain.js';

/**
 * Longest value looked at (the partner takes lookup values up to 2,048 characters); anything longer
 * is no identifier, and every check below stays linear in what is left.
 */
export const MAX_MATCH_VALUE_LENGTH = 2_048;
/** An e-mail address is at most 254 characters (RFC 5321). */
const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    // A bad percent-escape: not a profile address we can read.
    return undefined;
  }
}

function slugOf(value: string): string | undefined {
  const text = withoutTrailingSlashes(value.trim());
  if (/^https?:\/\//i.test(text)) {
    const last = text.split(/[?#]/)[0]!.split('/').pop();
    return last ? decoded(last) : undefined;
  }
  return text.replace(/^@/, '') || undefined;
}

/** The lookup value of kind `by` in a raw value, or undefined when it holds none. */
export function resolveMatchValue(by: LookupKind, raw: unknown): string | undefined {
  const value: unknown = Array.isArray(raw) ? raw.find((v) => typeof v === 'string' && v.trim() !== '') : raw;
  if (typeof value !== 'string') return undefined;
  if (value.length > 4 * MAX_MATCH_VALUE_LENGTH) return undefined;
  const text = value.trim();
  if (text === '' || text.length > MAX_MATCH_VALUE_LENGTH) return undefined;
  switch (by) {
    case 'work_email':
    case 'personal_email': {
      if (text.length > MAX_EMAIL_LENGTH) return undefined;
      const email = text.toLowerCase();
      // Dots split the domain into labels none of which is empty: one way to match, so no backtracking.
      return EMAIL.test(email) ? email : undefined;
    }
    case 'fqdn':
      return domainOf(text);
    case 'website':
      return domainOf(text) ? text : undefined;
    case 'ln_url':
      return /^https?:\/\//i.test(text) || text.includes('/') ? text : undefined;
    case 'ln_slug':
      return slugOf(text);
    case 'abn': {
      const digits = text.replace(/\s/g, '');
      return /^\d{11}$/.test(digits) ? digits : undefined;
    }
    case 'id':
      return text;
  }
}
