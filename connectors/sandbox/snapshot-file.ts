/**
 * A JSON file that keeps an in-memory stand-in's data across restarts (the CRM sandboxes of the
 * embedded default). Changes are written once they pause for a moment, at least every half minute
 * while they go on (an import of thousands of records), and on close; each time whole and atomically
 * (a temporary file renamed over the old one), so a crash leaves the last complete copy. The copy is
 * written record by record, never built as one string: the sandboxes share the service's heap.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface SnapshotTiming {
  /** How long changes must pause before they are written. */
  quietMs: number;
  /** The longest a change waits while changes go on. */
  maxWaitMs: number;
}

const DEFAULT_TIMING: SnapshotTiming = { quietMs: 1_000, maxWaitMs: 30_000 };

export class SnapshotFile {
  private timer: NodeJS.Timeout | undefined;
  /** When the oldest change not yet written was made. */
  private pendingSince: number | undefined;

  constructor(
    readonly path: string,
    /** The data to keep: plain values, where arrays may be any iterable (read lazily while writing). */
    private readonly take: () => unknown,
    private readonly timing: SnapshotTiming = DEFAULT_TIMING,
  ) {}

  /**
   * The file's contents as parsed JSON, or undefined when there is no file yet; a broken file is an error naming it.
   */
  read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new Error(`${this.path} is not valid JSON (${(error as Error).message}); move it away to start empty`, {
        cause: error,
      });
    }
  }

  /** Something changed: it is written once changes pause, or when the oldest has waited long enough. */
  changed(): void {
    const now = Date.now();
    this.pendingSince ??= now;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.timing.quietMs, this.pendingSince + this.timing.maxWaitMs - now));
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  /** Writes what changed now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingSince === undefined) return;
    this.pendingSince = undefined;
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    try {
      let buffered = '';
      for (const chunk of jsonChunks(this.take())) {
        buffered += chunk;
        if (buffered.length < 64 * 1024) continue;
        writeSync(fd, buffered);
        buffered = '';
      }
      writeSync(fd, buffered);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.path);
  }
}

/**
 * JSON text of `value` in pieces: the outer objects member by member and iterables item by item, so one
 * record at a time is turned into text; below `whole` levels a plain object or array is one piece.
 */
function* jsonChunks(value: unknown, depth = 0, whole = 3): Generator<string> {
  const iterable = typeof value === 'object' && value !== null && Symbol.iterator in value;
  if (
    value === null ||
    typeof value !== 'object' ||
    value instanceof Date ||
    (depth >= whole && !iterable) ||
    (depth >= whole && Array.isArray(value))
  ) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (iterable) {
    yield '[';
    let first = true;
    for (const item of value as Iterable<unknown>) {
      if (!first) yield ',';
      first = false;
      yield* jsonChunks(item, depth + 1, whole);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonChunks(member, depth + 1, whole);
  }
  yield '}';
}
