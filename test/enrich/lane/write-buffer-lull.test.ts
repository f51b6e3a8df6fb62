/**
 * The write buffer's lull: a partial batch larger than one claim waits `lullMs` after the last lookup
 * that could join it before it goes short, so the next claim's lookups can fill it; without a lull it
 * goes the moment none is pending, as before.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteBuffer, type BufferedWrite } from '../../../src/enrich/lane/write-buffer.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function buffer(lullMs: number | undefined, pending: { n: number }) {
  const flushed: number[] = [];
  const b = new WriteBuffer<number>({
    batchSize: 1_000,
    maxWaitMs: 60_000,
    lullMs,
    pending: () => pending.n,
    flush: async (writes: BufferedWrite<number>[]) => void flushed.push(writes.length),
  });
  return { b, flushed };
}

describe('write buffer lull', () => {
  it('sends a partial batch at once when nothing is pending and there is no lull', () => {
    const pending = { n: 0 };
    const { b, flushed } = buffer(undefined, pending);
    b.add('r1', { Title: 'x' }, 1);
    expect(flushed).toEqual([1]);
  });

  it('holds a partial batch through a short gap in lookups and sends it after a real lull', () => {
    const pending = { n: 200 };
    const { b, flushed } = buffer(1_000, pending);
    for (let i = 0; i < 200; i++) b.add(`a${i}`, { Title: 'x' }, i);
    pending.n = 0;
    b.consider();
    vi.advanceTimersByTime(600);
    expect(flushed).toEqual([]);
    // The next claim's lookups start within the lull, and their writes join the same batch.
    pending.n = 200;
    b.consider();
    for (let i = 0; i < 200; i++) b.add(`b${i}`, { Title: 'x' }, i);
    pending.n = 0;
    b.consider();
    vi.advanceTimersByTime(999);
    expect(flushed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(flushed).toEqual([400]);
  });

  it('sends a full batch at once, lull or not', () => {
    const pending = { n: 5 };
    const { b, flushed } = buffer(1_000, pending);
    for (let i = 0; i < 1_000; i++) b.add(`r${i}`, { Title: 'x' }, i);
    expect(flushed).toEqual([1_000]);
  });
});
