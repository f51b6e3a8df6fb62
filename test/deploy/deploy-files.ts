/**
 * Reading the files under deploy/ the way the tools that use them do, so the deploy tests can assert
 * what Docker, Compose and Kubernetes would see.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ConfigSchema } from '../../src/config.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const deployDir = join(repoRoot, 'deploy');
export const configKeys = new Set(Object.keys(ConfigSchema.shape));

export const readText = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** Every file under `dir` (absolute), as paths relative to the repository root. */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)))
    .sort();
}

/** All documents of a YAML file; throws on the first parse error, naming the file. */
export function readYamlDocuments(path: string): unknown[] {
  const docs = parseAllDocuments(readText(path));
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) {
    if (doc.errors.length) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
  }
  return docs.map((d) => d.toJS());
}

export interface DockerInstruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
export function dockerInstructions(text: string): DockerInstruction[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    if (!current && /^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    current += line;
    if (current.trim()) logical.push(current.trim());
    current = '';
  }
  return logical.map((l) => {
    const [keyword = ''] = l.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: l.slice(keyword.length).trim() };
  });
}

/** The sources and flags of a COPY instruction, in either of its two forms. */
export function copySources(args: string): { flags: string[]; sources: string[] } {
  const flags: string[] = [];
  let rest = args;
  for (let m = /^(--\S+)\s+/.exec(rest); m; m = /^(--\S+)\s+/.exec(rest)) {
    flags.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  const parts: string[] = rest.startsWith('[') ? JSON.parse(rest) : rest.split(/\s+/);
  return { flags, sources: parts.slice(0, -1) };
}

/** Relative and bare module specifiers a TypeScript/JavaScript file loads at run time (type-only imports excluded). */
export function runtimeImports(source: string): string[] {
  const found: string[] = [];
  const statement = /\b(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(statement)) if (!m[2]) found.push(m[3]!);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

/** `${NAME}`, `${NAME:-default}` and the like: the variables a Compose file interpolates. */
export function interpolatedNames(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}
