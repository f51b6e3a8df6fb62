/**
 * The sandboxes' data file: a copy made while changes go on is written in slices, so the event loop
 * the service shares with the sandboxes keeps turning; it holds the records the copy started with, each
 * whole; a copy on close replaces one under way; and the next background copy rests after the last.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SnapshotFile } from '../../connectors/sandbox/snapshot-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-file-'));
  dirs.push(dir);
  return dir;
}

interface Row {
  id: number;
  text: string;
}

/** A store of `n` records whose copy lists them as they are when the copy starts. */
function rows(n: number) {
  const all: Row[] = Array.from({ length: n }, (_, id) => ({ id, text: `record ${id} `.repeat(20) }));
  return { all, take: () => ({ records: all.slice() }) };
}

const written = (file: SnapshotFile) => (file.read() as { records: Row[] }).records;

/** Resolves once `file` has a copy on disk. */
async function firstCopy(file: SnapshotFile): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (file.read() === undefined && Date.now() < deadline) {
    await file.settled();
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('a sandbox data file', () => {
  it('writes a copy made while changes go on in slices, the loop turning meanwhile, whole at the end', async () => {
    const store = rows(40_000);
    const dir = tempDir();
    const file = new SnapshotFile(join(dir, 'data.json'), store.take, { quietMs: 0, maxWaitMs: 0 });
    // Turns of the loop that found the copy half written: none if it were written in one go.
    let turns = 0;
    const ticker = setInterval(() => {
      if (readdirSync(dir).some((name) => name.endsWith('.tmp.background'))) turns++;
    }, 1);
    file.changed();
    await new Promise((r) => setTimeout(r, 10));
    // Records that come while the copy is written wait for the next one.
    store.all.push({ id: -1, text: 'late' });
    await firstCopy(file);
    clearInterval(ticker);
    const records = written(file);
    expect(records).toHaveLength(40_000);
    expect(records.at(-1)).toEqual({ id: 39_999, text: 'record 39999 '.repeat(20) });
    expect(turns).toBeGreaterThan(3);
  });

  it('lets a copy on close take the place of one under way, leaving no temporary file', async () => {
    const dir = tempDir();
    const store = rows(40_000);
    const file = new SnapshotFile(join(dir, 'data.json'), store.take, { quietMs: 0, maxWaitMs: 0 });
    file.changed();
    await new Promise((r) => setTimeout(r, 2));
    store.all.push({ id: 40_000, text: 'last' });
    file.flush();
    await file.settled();
    expect(written(file)).toHaveLength(40_001);
    expect(readdirSync(dir)).toEqual(['data.json']);
  });

  it('waits after a background copy for twenty times as long as it worked before the next', async () => {
    const store = rows(20_000);
    const path = join(tempDir(), 'data.json');
    const file = new SnapshotFile(path, store.take, { quietMs: 0, maxWaitMs: 0 });
    file.changed();
    await firstCopy(file);
    store.all.push({ id: 20_000, text: 'next' });
    const changedAt = Date.now();
    file.changed();
    while (written(file).length === 20_000) await new Promise((r) => setTimeout(r, 2));
    // The first copy of 20,000 records took at least a millisecond of work: the next waited 20 ms or more.
    expect(Date.now() - changedAt).toBeGreaterThanOrEqual(20);
    expect(JSON.parse(readFileSync(path, 'utf8')).records).toHaveLength(20_001);
  });
});
