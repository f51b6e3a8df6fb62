/**
 * Writes an edited list of field rows back into a mapping document's text, for the admin page's
 * pickers: only the `fields` list changes. Rows that did not change keep their node as it was (its
 * comments and flow or block style); a changed row is edited in place, so its comment and style stay
 * too; only a new row gets a new node. The rest of the document is never re-serialised differently.
 */
import { isDeepStrictEqual } from 'node:util';
import { isMap, isSeq, parseDocument, type Document, type YAMLMap, type YAMLSeq } from 'yaml';

export type FieldRow = Record<string, unknown>;

export class RenderError extends Error {}

const isScalarValue = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Sets `map` to hold exactly `row`'s keys, in place: unchanged values keep their nodes (and comments). */
function editInPlace(doc: Document, map: YAMLMap, row: FieldRow): void {
  for (const pair of [...map.items]) {
    const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
    if (!Object.hasOwn(row, key)) map.delete(key);
  }
  for (const [key, value] of Object.entries(row)) {
    const before = map.get(key, true);
    const old = before && typeof before === 'object' && 'toJSON' in before ? (before as { toJSON(): unknown }).toJSON() : before;
    if (before !== undefined && isDeepStrictEqual(old, value)) continue;
    map.set(key, doc.createNode(value));
  }
}

function newNode(doc: Document, row: FieldRow): YAMLMap {
  const node = doc.createNode(row) as YAMLMap;
  // One-line rows read like the shipped files ({ target: firstname, from: first_name }).
  if (Object.values(row).every(isScalarValue)) node.flow = true;
  return node;
}

export function renderFields(text: string, rows: readonly FieldRow[]): string {
  const doc = parseDocument(text);
  if (doc.errors.length) throw new RenderError(`the document does not parse as YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it in the YAML view first`);
  if (!isMap(doc.contents)) throw new RenderError('the document is not a mapping (a YAML map with crm, object, fields ...)');
  const existing = doc.get('fields', true);
  const items = isSeq(existing) ? (existing as YAMLSeq).items.filter(isMap) : [];
  const values = items.map((node) => node.toJSON() as FieldRow);
  const used = new Set<number>();
  const claim = (i: number) => (i >= 0 && !used.has(i) ? (used.add(i), items[i]!) : undefined);

  const nodes = rows.map((row, index) => {
    const same = claim(values.findIndex((v, i) => !used.has(i) && isDeepStrictEqual(v, row)));
    if (same) return same;
    // A row whose rule or source changed is the node with its target; one whose target changed is the node at its place.
    const target = claim(values.findIndex((v, i) => !used.has(i) && v.target === row.target));
    const node = target ?? (index < items.length && !used.has(index) && rows.every((r) => r.target !== values[index]!.target) ? claim(index) : undefined);
    if (!node) return newNode(doc, row);
    editInPlace(doc, node, row);
    return node;
  });
  if (isSeq(existing)) {
    (existing as YAMLSeq).items = nodes;
  } else {
    const seq = doc.createNode([]) as YAMLSeq;
    seq.items = nodes;
    doc.set('fields', seq);
  }
  return doc.toString({ lineWidth: 0 });
}
