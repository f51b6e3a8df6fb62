/**
 * A JSON file that keeps an in-memory stand-in's data across restarts (the CRM sandboxes of the
 * embedded default). Changes are written after a short quiet spell and on close, each time whole and
 * atomically (a temporary file renamed over the old one), so a crash leaves the last complete copy.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class SnapshotFile {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;

  constructor(
    readonly path: string,
    private readonly take: () => unknown,
    private readonly quietMs = 500,
  ) {}

  /** The file's contents as parsed JSON, or undefined when there is no file yet; a broken file is an error naming it. */
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

  /** Something changed: it is written once changes pause. */
  changed(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.quietMs);
    this.timer.unref();
  }

  /** Writes what changed now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.take()), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
