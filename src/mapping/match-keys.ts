/**
 * Normalises the identifiers read from CRM properties into the partner's lookup keys, so the same
 * person typed two ways is one lookup (and one cache entry).
 */
import type { LookupKind } from './format.js';
import { domainOf } from './transforms/text.js';

function slugOf(value: string): string | undefined {
  const text = value.trim().replace(/\/+$/, '');
  if (/^https?:\/\//i.test(text)) {
    const last = text.split(/[?#]/)[0]!.split('/').pop();
    return last ? decodeURIComponent(last) : undefined;
  }
  return text.replace(/^@/, '') || undefined;
}

/** The lookup value of kind `by` in a raw value, or undefined when it holds none. */
export function resolveMatchValue(by: LookupKind, raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw.find((v) => typeof v === 'string' && v.trim() !== '') : raw;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  switch (by) {
    case 'work_email':
    case 'personal_email': {
      const email = text.toLowerCase();
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
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
