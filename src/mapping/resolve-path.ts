/**
 * Compiles a dotted source path into a reader. Lists are walked (and flattened), only own keys are
 * read, and phone numbers marked do-not-disturb are dropped unless the field allows them.
 */
import { FORBIDDEN_SEGMENTS } from './validate.js';
import type { ValueKind } from './source-paths.js';

export type PathReader = (root: Record<string, unknown>) => unknown;

const digits = (phone: string): string => phone.replace(/\D/g, '');

let lastRoot: Record<string, unknown> | undefined;
let lastSet: Set<string> = new Set();

/** Digits of every number the record marks do-not-disturb; remembered for the record being mapped. */
export function dndNumbers(root: Record<string, unknown>): Set<string> {
  if (root === lastRoot) return lastSet;
  const out = new Set<string>();
  lastRoot = root;
  lastSet = out;
  const phones = root.phones;
  if (!Array.isArray(phones)) return out;
  for (const p of phones) {
    if (isDnd(p) && typeof (p as { value?: unknown }).value === 'string') {
      out.add(digits((p as { value: string }).value));
    }
  }
  return out;
}

function isDnd(entry: unknown): boolean {
  return entry !== null && typeof entry === 'object' && (entry as { is_dnd?: unknown }).is_dnd === true;
}

function step(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const v = step(item, key);
      if (Array.isArray(v)) out.push(...(v as unknown[]));
      else if (v !== undefined && v !== null) out.push(v);
    }
    return out;
  }
  if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
  return (value as Record<string, unknown>)[key];
}

export function compilePath(path: string, kind: ValueKind | undefined, allowDnd: boolean): PathReader {
  const keys = path.split('.');
  if (keys.some((k) => FORBIDDEN_SEGMENTS.has(k))) throw new Error(`forbidden key in source path "${path}"`);
  const read: PathReader =
    keys.length === 1
      ? (root) => step(root, keys[0]!)
      : (root) => {
          let value: unknown = root;
          for (const key of keys) {
            value = step(value, key);
            if (value === undefined || value === null) return undefined;
          }
          return value;
        };
  if (allowDnd) return read;
  if (kind?.base === 'phone_entry') {
    return (root) => {
      const value = read(root);
      return Array.isArray(value) && value.some(isDnd) ? value.filter((p) => !isDnd(p)) : value;
    };
  }
  if (kind?.phone) {
    return (root) => {
      const value = read(root);
      if (value === undefined) return value;
      const dnd = dndNumbers(root);
      if (dnd.size === 0) return value;
      if (Array.isArray(value)) {
        const list = value as unknown[];
        const kept = list.filter((p) => typeof p !== 'string' || !dnd.has(digits(p)));
        return kept.length === list.length ? list : kept;
      }
      return typeof value === 'string' && dnd.has(digits(value)) ? undefined : value;
    };
  }
  return read;
}
