/**
 * A JSON file that keeps an in-memory stand-in's data across restarts (the CRM sandboxes of the
 * embedded default). Changes are written once they pause for a moment, at least every half minute
 * while they go on (an import of thousands of records), and on close; each time whole and atomically
 * (a temporary file renamed over the old one), so a crash leaves the last complete copy. The copy is
 * written record by record, never built as one string: the sandboxes share the service's heap.
 *
 * The sandboxes also share the service's event loop, so a copy made while changes go on is written
 * a slice of a few milliseconds at a time, and the next one waits twenty times as long as this one
 * worked. (Written at once, each copy of a 15,000-contact portal held the loop for hundreds of
 * milliseconds whenever changes paused for a second: 16 s of the last 180 s of a 15,000-contact
 * import, while the service's partner lookups and people's contacts waited behind it.) Each record is
 * written as it is when its turn comes; the set of records is the one the copy started with. The copy
 * on close is written at once.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface SnapshotTiming {
  /** How long changes must pause before they are written. */
  quietMs: number;
  /** The longest a change waits while changes go on. */
  maxWaitMs: number;
}

const DEFAULT_TIMING: SnapshotTiming = { quietMs: 1_000, maxWaitMs: 30_000 };

/** The longest a copy made in the background holds the event loop at once. */
const SLICE_MS = 5;
/** A copy made in the background waits this many times as long as the last one worked. */
const REST_FACTOR = 20;
const CHUNK_CHARS = 64 * 1024;

/** A copy being written in the background; `cancelled` once a copy on close took its place. */
interface Writing {
  cancelled: boolean;
  done: Promise<void>;
}

export class SnapshotFile {
  private timer: NodeJS.Timeout | undefined;
  /** When the oldest change not yet written was made. */
  private pendingSince: number | undefined;
  private writing: Writing | undefined;
  /** No copy starts in the background before this (Date.now()), after the last one's work. */
  private restUntil = 0;

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
    const wait = Math.max(
      0,
      Math.min(this.timing.quietMs, this.pendingSince + this.timing.maxWaitMs - now),
      this.restUntil - now,
    );
    this.timer = setTimeout(() => this.writeInBackground(), wait);
    this.timer.unref();
  }

  /** Writes what changed now, at once (on close); a copy under way in the background is dropped. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) this.writing.cancelled = true;
    if (this.pendingSince === undefined && !this.writing) return;
    this.pendingSince = undefined;
    const fd = this.open(this.temporary());
    try {
      let buffered = '';
      for (const chunk of jsonChunks(this.take())) {
        buffered += chunk;
        if (buffered.length < CHUNK_CHARS) continue;
        writeSync(fd, buffered);
        buffered = '';
      }
      writeSync(fd, buffered);
    } finally {
      closeSync(fd);
    }
    renameSync(this.temporary(), this.path);
  }

  /** Waits for a copy being written in the background (tests, and callers that read the file). */
  async settled(): Promise<void> {
    await this.writing?.done;
  }

  private writeInBackground(): void {
    this.timer = undefined;
    if (this.pendingSince === undefined) return;
    if (this.writing) {
      // One copy at a time: the changes since wait for the next.
      void this.writing.done.then(() => {
        if (this.pendingSince !== undefined) this.changed();
      });
      return;
    }
    this.pendingSince = undefined;
    const writing: Writing = { cancelled: false, done: Promise.resolve() };
    writing.done = this.write(writing).finally(() => {
      if (this.writing === writing) this.writing = undefined;
    });
    this.writing = writing;
  }

  private async write(writing: Writing): Promise<void> {
    let worked = 0;
    let sliceFrom = performance.now();
    const temporary = `${this.temporary()}.background`;
    let fd: number | undefined;
    try {
      fd = this.open(temporary);
      let buffered = '';
      for (const chunk of jsonChunks(this.take())) {
        buffered += chunk;
        if (buffered.length < CHUNK_CHARS && performance.now() - sliceFrom < SLICE_MS) continue;
        writeSync(fd, buffered);
        buffered = '';
        if (performance.now() - sliceFrom < SLICE_MS) continue;
        worked += performance.now() - sliceFrom;
        await nextTurn();
        if (writing.cancelled) return;
        sliceFrom = performance.now();
      }
      writeSync(fd, buffered);
      closeSync(fd);
      fd = undefined;
      if (writing.cancelled) return;
      renameSync(temporary, this.path);
    } catch {
      // The changes stay to be written: the next change, or the copy on close, writes them.
      this.pendingSince ??= Date.now();
    } finally {
      if (fd !== undefined) closeSync(fd);
      rmSync(temporary, { force: true });
      worked += performance.now() - sliceFrom;
      this.restUntil = Date.now() + REST_FACTOR * worked;
    }
  }

  private temporary(): string {
    return `${this.path}.${process.pid}.tmp`;
  }

  /** A temporary file beside the data file, for a copy to be renamed over it once whole. */
  private open(temporary: string): number {
    mkdirSync(dirname(this.path), { recursive: true });
    return openSync(temporary, 'w', 0o600);
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
