/**
 * Writes an edited list of field rows back into a mapping document's text, for the admin page's
 * pickers. Only the rows that changed are written anew: every other line of the document (comments,
 * wrapped lists, the other sections, unchanged rows with the comment above them) stays byte for byte,
 * so the diff an admin confirms before saving shows their edit and nothing else.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isSeq, LineCounter, parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';

export type FieldRow = Record<string, unknown>;

export class RenderError extends Error {}

const isScalarValue = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Sets `map` to hold exactly `row`'s keys, in place: unchanged values keep their nodes, style and comments. */
function editInPlace(doc: Document, map: YAMLMap, row: FieldRow): void {
  for (const pair of [...map.items]) {
    const key = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
    if (!Object.hasOwn(row, key)) map.delete(key);
  }
  for (const [key, value] of Object.entries(row)) {
    const before: unknown = map.get(key, true);
    const old =
      before && typeof before === 'object' && 'toJSON' in before ? (before as { toJSON(): unknown }).toJSON() : before;
    if (before !== undefined && isDeepStrictEqual(old, value)) continue;
    map.set(key, doc.createNode(value));
  }
}

function newNode(doc: Document, row: FieldRow): YAMLMap {
  const node = doc.createNode(row) as YAMLMap;
  // One-line rows read like the shipped files: `- { target: firstname, from: first_name }`.
  if (Object.values(row).every(isScalarValue)) node.flow = true;
  return node;
}

/** One list item as text at `indent` columns, without the comment above it (the caller keeps that as it was). */
function itemText(node: YAMLMap, indent: number): string {
  const comment = node.commentBefore;
  node.commentBefore = undefined;
  const single = new Document([]);
  (single.contents as YAMLSeq).items = [node];
  const text = single.toString({ lineWidth: 0 });
  node.commentBefore = comment;
  return text.replace(/^(?=.)/gm, ' '.repeat(indent));
}

interface Planned {
  node: YAMLMap;
  /** Index of the item it was in the document, when it was one. */
  from?: number;
  edited: boolean;
}

export function renderFields(text: string, rows: readonly FieldRow[]): string {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length)
    throw new RenderError(
      `the document does not parse as YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it in the YAML view first`,
    );
  if (!isMap(doc.contents))
    throw new RenderError('the document is not a mapping (a YAML map with crm, object, fields ...)');
  const existing = doc.get('fields', true);
  const seq = isSeq(existing) ? existing : undefined;
  const items = (seq?.items ?? []).map((n) => (isMap(n) ? n : undefined));
  const values = items.map((node) => node?.toJSON() as FieldRow | undefined);
  const used = new Set<number>();
  const find = (test: (v: FieldRow) => boolean) =>
    values.findIndex((v, i) => v !== undefined && !used.has(i) && test(v));

  const plan: Planned[] = rows.map((row, index) => {
    const same = find((v) => isDeepStrictEqual(v, row));
    if (same >= 0) {
      used.add(same);
      return { node: items[same]!, from: same, edited: false };
    }
    // A row whose rule or source changed is the item with its target; one whose target changed, the item at its place.
    let at = find((v) => v.target === row.target);
    if (at < 0 && items[index] && !used.has(index) && rows.every((r) => r.target !== values[index]?.target)) at = index;
    if (at < 0) return { node: newNode(doc, row), edited: true };
    used.add(at);
    editInPlace(doc, items[at]!, row);
    return { node: items[at]!, from: at, edited: true };
  });

  const spliced =
    seq && !seq.flow && items.length > 0 && items.every((n) => n?.range)
      ? splice(text, lines, doc, seq, plan)
      : undefined;
  if (spliced !== undefined) return spliced;
  // No block list to splice into (an empty `fields: []`, or a flow list): the document is written anew.
  const list = doc.createNode([]) as YAMLSeq;
  list.items = plan.map((p) => p.node);
  doc.set('fields', list);
  return doc.toString({ lineWidth: 0 });
}

/** The text with the block list's items replaced: kept items as their original lines, edited and new ones written. */
function splice(text: string, lines: LineCounter, doc: Document, seq: YAMLSeq, plan: Planned[]): string | undefined {
  const lineStart = (line: number) => (line <= 1 ? 0 : lines.lineStarts[line - 1]!);
  const lineOf = (offset: number) => lines.linePos(offset).line;
  const items = seq.items as YAMLMap[];
  const firstLine = lineOf(items[0]!.range![0]);
  // The chunk of item i: from the line after the previous item (comment lines above it included) to its last line.
  const ends = items.map((n) => lineOf(Math.max(n.range![0], n.range![1] - 1)));
  if (ends.some((end, i) => i > 0 && lineOf(items[i]!.range![0]) <= ends[i - 1]!)) return undefined;
  // Comment lines right above the first item belong to it, as the lines after each item belong to the next.
  let headLine = firstLine;
  while (headLine > 1 && /^\s*#/.test(text.slice(lineStart(headLine - 1), lineStart(headLine)))) headLine--;
  const headEnd = lineStart(headLine);
  const chunk = (i: number) => text.slice(lineStart(i === 0 ? headLine : ends[i - 1]! + 1), lineStart(ends[i]! + 1));
  const itemLine = (i: number) =>
    text.slice(lineStart(lineOf(items[i]!.range![0])), lineStart(lineOf(items[i]!.range![0]) + 1));
  const indent = itemLine(0).search(/\S/);
  const tail = text.slice(lineStart(ends[ends.length - 1]! + 1));
  const withNewline = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);

  const body = plan.map((p) => {
    if (p.from === undefined) return itemText(p.node, indent);
    if (!p.edited) return withNewline(chunk(p.from));
    // The comment lines above an edited item stay; the item itself is written anew.
    const whole = chunk(p.from);
    const above = whole.slice(0, whole.indexOf(itemLine(p.from)));
    return above + itemText(p.node, indent);
  });
  if (plan.length === 0) return text.slice(0, headEnd).replace(/\n$/, ' []\n') + tail;
  return text.slice(0, headEnd) + body.join('') + tail;
}
