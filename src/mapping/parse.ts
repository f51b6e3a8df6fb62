/**
 * Reads one mapping file: YAML syntax, forbidden keys, the zod format, then the checks that need the
 * partner schemas and the transform registry. Returns every problem, never throws on bad input.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Node } from 'yaml';
import type { z } from 'zod';
import { MappingDocument, RULES } from './format.js';
import { closest } from './nearest.js';
import { ProblemList, yamlErrorMessage, type MappingProblem } from './problems.js';
import { FORBIDDEN_SEGMENTS, validateDocument } from './validate.js';

export interface ParsedMapping {
  file: string;
  document?: MappingDocument;
  problems: MappingProblem[];
}

/** Names a list item by its `target` when it has one, so paths read `fields > jobtitle > from`. */
function segmentFor(container: unknown, index: number): string | number {
  const item: unknown = Array.isArray(container) ? container[index] : undefined;
  const target = item && typeof item === 'object' ? (item as { target?: unknown }).target : undefined;
  return typeof target === 'string' && target !== '' ? target : index;
}

function readablePath(raw: unknown, path: readonly PropertyKey[]): (string | number)[] {
  const out: (string | number)[] = [];
  let node: unknown = raw;
  for (const key of path) {
    if (typeof key === 'number') out.push(segmentFor(node, key));
    else out.push(String(key));
    node =
      node && typeof node === 'object' && Object.hasOwn(node, key)
        ? (node as Record<PropertyKey, unknown>)[key]
        : undefined;
  }
  return out;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = raw;
  for (const key of path)
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

/** A rule the format does not have, with the one it most likely meant (`fill_emtpy`: `fill_empty`). */
function ruleProblem(value: unknown): string {
  const hint = typeof value === 'string' ? closest(value, RULES) : undefined;
  return `rule must be one of ${RULES.join(', ')}${hint ? `; did you mean "${hint}"?` : ''}`;
}

function findForbidden(node: Node | null, path: PropertyKey[], raw: unknown, problems: ProblemList): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (FORBIDDEN_SEGMENTS.has(key)) {
        problems.add([...readablePath(raw, path), key], 'forbidden_key', `"${key}" is not allowed as a key; remove it`);
        continue;
      }
      findForbidden(pair.value as Node | null, [...path, key], raw, problems);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findForbidden(item as Node | null, [...path, i], raw, problems));
  }
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
};

/** The keys the format allows at a path, for "did you mean" on an unknown key. */
function allowedKeys(path: readonly PropertyKey[]): string[] {
  let candidates: z.ZodType[] = [MappingDocument];
  for (const key of path) {
    const next: z.ZodType[] = [];
    for (const schema of candidates.flatMap(expand)) {
      const def = (schema as unknown as { def: Def }).def;
      if (def.type === 'object' && typeof key === 'string' && def.shape?.[key]) next.push(def.shape[key]);
      if (def.type === 'array' && typeof key === 'number' && def.element) next.push(def.element);
    }
    candidates = next;
  }
  return candidates.flatMap(expand).flatMap((s) => Object.keys((s as unknown as { def: Def }).def.shape ?? {}));
}

function expand(schema: z.ZodType): z.ZodType[] {
  const def = (schema as unknown as { def: Def }).def;
  if (def.type === 'optional' || def.type === 'default') return expand(def.innerType!);
  if (def.type === 'union') return (def.options ?? []).flatMap(expand);
  return [schema];
}

/** More alias expansions than any mapping needs; the yaml library's own default is 100. */
const MAX_ALIAS_COUNT = 50;

export function parseMappingDocument(text: string, file: string): ParsedMapping {
  const problems = new ProblemList(file);
  const lineCounter = new LineCounter();
  const yamlDoc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter });
  for (const error of yamlDoc.errors) problems.add([], 'yaml_syntax', yamlErrorMessage(error));
  if (yamlDoc.errors.length) return { file, problems: problems.items };
  let raw: unknown;
  try {
    // Aliases that expand into millions of nodes (a "billion laughs" document) stop here, not in memory.
    raw = yamlDoc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    let line: number | undefined;
    visit(yamlDoc, {
      Alias(_key, node) {
        if (node.range) line = lineCounter.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
    problems.add(
      [],
      'yaml_syntax',
      `${(error as Error).message.split('\n')[0]}${line ? ` (line ${line})` : ''}; a mapping needs no aliases`,
    );
    return { file, problems: problems.items };
  }
  findForbidden(yamlDoc.contents, [], raw, problems);
  if (problems.items.length) return { file, problems: problems.items };

  const parsed = MappingDocument.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = readablePath(raw, issue.path);
      if (issue.code === 'unrecognized_keys') {
        problems.addUnknownKeys(path, issue.keys, allowedKeys(issue.path));
      } else if (issue.path[issue.path.length - 1] === 'rule') {
        problems.add(path, 'bad_rule', ruleProblem(valueAt(raw, issue.path)));
      } else if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
        problems.add(
          path,
          'invalid_value',
          `missing; ${issue.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')}`,
        );
      } else {
        problems.add(path, 'invalid_value', issue.message);
      }
    }
    // Report the other fields' problems too, not only after these are fixed: check the document
    // again without the broken fields (their paths name targets, so nothing else moves).
    const rest = withoutBrokenFields(raw, parsed.error.issues);
    const retried = rest === undefined ? undefined : MappingDocument.safeParse(rest);
    if (retried?.success) return { file, problems: [...problems.items, ...validateDocument(retried.data, file)] };
    return { file, problems: problems.items };
  }
  const semantic = validateDocument(parsed.data, file);
  return { file, document: parsed.data, problems: semantic };
}

/** The raw document minus the `fields` entries the issues point into; undefined when an issue lies elsewhere. */
function withoutBrokenFields(raw: unknown, issues: readonly { path: readonly PropertyKey[] }[]): unknown {
  const broken = new Set<number>();
  for (const issue of issues) {
    if (issue.path[0] !== 'fields' || typeof issue.path[1] !== 'number') return undefined;
    broken.add(issue.path[1]);
  }
  const doc = raw as { fields?: unknown };
  if (!Array.isArray(doc.fields)) return undefined;
  return { ...doc, fields: doc.fields.filter((_, i) => !broken.has(i)) };
}
