/**
 * The shape of a named transform. Validation calls `infer` with what the source can produce, so a
 * transform that cannot take a field's input is reported before any record is mapped.
 */
import type { z } from 'zod';
import type { ValueKind } from '../source-paths.js';

export interface TransformContext {
  /** The whole partner record, for transforms that need more than their input. */
  root: Record<string, unknown>;
}

export interface Transform<A = unknown> {
  name: string;
  summary: string;
  args: z.ZodType<A>;
  /** The output kind for an input kind, or a message saying which inputs it takes. */
  infer(input: ValueKind, args: A): ValueKind | string;
  /** Returns undefined when there is no value. */
  run(value: unknown, args: A, context: TransformContext): unknown;
}

export function defineTransform<A>(transform: Transform<A>): Transform<unknown> {
  return transform;
}

/** The string inside a partner e-mail or phone entry, or the value itself when it is a string. */
export function entryValue(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry !== null && typeof entry === 'object' && typeof (entry as { value?: unknown }).value === 'string') {
    return (entry as { value: string }).value;
  }
  return undefined;
}

export function isEntry(kind: ValueKind): boolean {
  return kind.base === 'email_entry' || kind.base === 'phone_entry';
}

export function isScalar(kind: ValueKind): boolean {
  return kind.base !== 'object' && !isEntry(kind);
}

export function describeKind(kind: ValueKind): string {
  const base = kind.base === 'email_entry' ? 'e-mail entry' : kind.base === 'phone_entry' ? 'phone entry' : kind.base;
  return kind.list ? `a list of ${base} values` : `a ${base} value`;
}
