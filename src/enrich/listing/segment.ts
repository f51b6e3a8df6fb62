/**
 * The segment of a "fill the gaps" backfill: the records missing one mapped property (`missing`), and/or
 * those whose own properties meet every `where` condition ("numberofemployees>=50", "jobtitle empty").
 * A condition reads a property of the record itself: a contact's segment filters on contact properties
 * (HubSpot's contact `numemployees`), never on its company's. Stored with the run, so a resumed run lists
 * the same segment; every page is filtered here whether or not the CRM narrowed the listing already.
 */
import { z } from 'zod';

export const SEGMENT_OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'empty', 'present'] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

export const SegmentCondition = z.object({
  property: z.string().min(1),
  op: z.enum(SEGMENT_OPERATORS),
  /** Absent for `empty` and `present`. */
  value: z.string().optional(),
});
export type SegmentCondition = z.infer<typeof SegmentCondition>;

export const Segment = z.object({
  /** A mapped property: only records with it empty and a match key (the report's `fillable`) are asked about. */
  missing: z.string().nullable(),
  where: z.array(SegmentCondition),
});
export type Segment = z.infer<typeof Segment>;

/** A segment an admin wrote wrong; `field` is the body field (`missing`, `where`) the CLI shows as its flag. */
export class SegmentError extends Error {
  readonly code = 'invalid_segment';
  constructor(
    readonly field: 'missing' | 'where',
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const NAME = '[A-Za-z_][A-Za-z0-9_.]*';
const UNARY = new RegExp(`^(${NAME})\\s+(empty|present)$`, 'i');
const BINARY = new RegExp(`^(${NAME})\\s*(>=|<=|!=|=|<|>)\\s*([^<>=!\\s].*)$`);

/** "numberofemployees>=50", "industry = Retail", "jobtitle empty", "phone present". */
export function parseCondition(text: string): SegmentCondition {
  const trimmed = text.trim();
  const unary = UNARY.exec(trimmed);
  if (unary) return { property: unary[1]!, op: unary[2]!.toLowerCase() as SegmentOperator };
  const binary = BINARY.exec(trimmed);
  const value = binary?.[3]?.trim().replace(/^"(.*)"$/, '$1');
  if (!binary || !value)
    throw new SegmentError(
      'where',
      `"${trimmed.slice(0, 80)}" is not a condition; write <property><op><value> with op one of ` +
        '=, !=, <, <=, >, >=, or "<property> empty" / "<property> present" (e.g. numberofemployees>=50)',
    );
  return { property: binary[1]!, op: binary[2] as SegmentOperator, value };
}

/**
 * Checks a segment against what the object has: `missing` must be a property the mapping writes, and each
 * condition's property one the mapping reads or the CRM's schema lists.
 */
export function checkSegment(
  segment: Segment,
  mapped: readonly string[],
  known: ReadonlySet<string>,
  object: string,
): void {
  if (segment.missing !== null && !mapped.includes(segment.missing))
    throw new SegmentError(
      'missing',
      `"${segment.missing}" is not a mapped property of ${object}; mapped: ${mapped.join(', ')}`,
    );
  for (const c of segment.where) {
    if (!known.has(c.property.toLowerCase()))
      throw new SegmentError('where', `"${c.property}" is not a property of ${object}`);
  }
}

export const isFilled = (value: string | null | undefined): boolean => typeof value === 'string' && value.trim() !== '';

const asNumber = (text: string): number | undefined => {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
};

/** A range as a CRM offers it (HubSpot's contact `numemployees`: "50-100", "1000+") by its lower bound. */
const leadingNumber = (text: string): number | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)(?:\s*-\s*\d+(?:\.\d+)?|\+)?\s*$/.exec(text);
  return match ? Number(match[1]) : undefined;
};

/**
 * Whether a record's properties meet one condition. Numbers compare as numbers (a range value such as
 * "50-100" or "1000+" by its lower bound, so `numemployees>=50` reads HubSpot's contact ranges), anything
 * else as text without case; an empty value meets only `empty` and `!=` (as a SOQL `!=` returns nulls too).
 */
export function meets(properties: Record<string, string | null>, c: SegmentCondition): boolean {
  const raw = valueOf(properties, c.property);
  if (c.op === 'empty') return !isFilled(raw);
  if (c.op === 'present') return isFilled(raw);
  if (!isFilled(raw)) return c.op === '!=';
  const b = asNumber(c.value ?? '');
  const a = b === undefined ? undefined : (asNumber(raw!) ?? leadingNumber(raw!));
  const order =
    a !== undefined && b !== undefined
      ? Math.sign(a - b)
      : raw!
          .trim()
          .toLowerCase()
          .localeCompare((c.value ?? '').toLowerCase());
  switch (c.op) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

/** A CRM may answer a property in another case than asked (Salesforce field names). */
function valueOf(properties: Record<string, string | null>, name: string): string | null | undefined {
  if (name in properties) return properties[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(properties)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export const meetsAll = (properties: Record<string, string | null>, where: readonly SegmentCondition[]): boolean =>
  where.every((c) => meets(properties, c));

/** The conditions the CRM may narrow its listing with: the `where` and, for `missing`, its emptiness. */
export function listingConditions(segment: Segment): SegmentCondition[] {
  return segment.missing === null ? segment.where : [...segment.where, { property: segment.missing, op: 'empty' }];
}
