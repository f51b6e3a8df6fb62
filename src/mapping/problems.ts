/**
 * Problems found in mapping files, as data: every problem in every file is collected and reported at
 * once, each as `file: path > to > key: message`.
 */
import { AppError } from '../core/errors.js';
import { closest } from './nearest.js';

export type ProblemCode =
  | 'yaml_syntax'
  | 'invalid_value'
  | 'unknown_key'
  | 'bad_rule'
  | 'forbidden_key'
  | 'unknown_source_path'
  | 'unknown_transform'
  | 'bad_transform_args'
  | 'transform_input'
  | 'list_needs_transform'
  | 'duplicate_target'
  | 'duplicate_mapping'
  | 'impossible_value_key'
  | 'bad_match'
  | 'custom_property'
  | 'unknown_property'
  | 'read_only_property'
  | 'type_mismatch'
  | 'option_not_allowed'
  | 'too_long';

export interface MappingProblem {
  file: string;
  /** Keys from the document root; a field is named by its target. */
  path: (string | number)[];
  code: ProblemCode;
  message: string;
}

/** `file: path > to > key: message`, or `file: message` for a problem of the whole file. */
export function formatProblem(p: MappingProblem): string {
  const where = p.path.length ? `${p.path.join(' > ')}: ` : '';
  return `${p.file}: ${where}${p.message}`;
}

/**
 * A YAML syntax error in one line. The yaml library's message ends with a colon before an excerpt of
 * the file; without the excerpt the colon would dangle.
 */
export function yamlErrorMessage(error: { message: string; linePos?: [{ line: number }, ...unknown[]] }): string {
  const first = (error.message.split('\n')[0] ?? '').replace(/:\s*$/, '');
  const line = error.linePos?.[0]?.line;
  return line && !/\bline \d/.test(first) ? `${first} (line ${line})` : first;
}

export function formatProblems(problems: readonly MappingProblem[]): string {
  return problems.map(formatProblem).join('\n');
}

/** Start-up and compile refuse invalid mappings with this error; its message is the full report. */
export class MappingError extends AppError {
  constructor(readonly problems: readonly MappingProblem[]) {
    super(
      'invalid_mappings',
      `The field mappings have ${problems.length} problem${problems.length === 1 ? '' : 's'}; ` +
        `fix them (run \`crm-enrich mappings check\`) and start again:\n${formatProblems(problems)}`,
      'config',
      { problems: problems.map((p) => ({ ...p })) },
    );
  }
}

/** Collects problems for one file, prefixing each with the file name. */
export class ProblemList {
  readonly items: MappingProblem[] = [];
  constructor(readonly file: string) {}

  add(path: (string | number)[], code: ProblemCode, message: string): void {
    this.items.push({ file: this.file, path, code, message });
  }

  /** Keys the format does not have at `path`, each with the nearest allowed key or the list of them. */
  addUnknownKeys(path: (string | number)[], keys: string[], allowed: string[]): void {
    for (const key of keys) {
      const hint = closest(key, allowed);
      this.add(
        [...path, key],
        'unknown_key',
        `unknown key "${key}"${hint ? `; did you mean "${hint}"?` : `; allowed: ${allowed.join(', ')}`}`,
      );
    }
  }
}
