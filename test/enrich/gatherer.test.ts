/**
 * The one gatherer, on fake timers: a group goes at once when full, when nothing more can join it, or
 * when its oldest item has lingered; a due group waits for the lull, and what arrives meanwhile joins it;
 * flush and drain send everything now. Every add resolves with its own send's result.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Gatherer, type GathererOptions } from '../../src/enrich/gatherer.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function gatherer(options: Partial<GathererOptions<string, number, number>> = {}) {
  const sent: { key: string; items: number[] }[] = [];
  const g = new Gatherer<string, number, number>({
    size: () => 3,
    linger: () => 1_000,
    send: async (key, items) => {
      sent.push({ key, items });
      return sent.length;
    },
    ...options,
  });
  return { g, sent };
}

it('sends a full group at once, in sends of at most its size', async () => {
  const { g, sent } = gatherer();
  const adds = [1, 2, 3].map((n) => g.add('a', n));
  expect(sent).toEqual([{ key: 'a', items: [1, 2, 3] }]);
  expect(await Promise.all(adds)).toEqual([1, 1, 1]);
  expect(g.count('a')).toBe(0);
});

it('takes its size from the group key, so each key can batch differently', async () => {
  const { g, sent } = gatherer({ size: (key) => (key === 'bulk' ? 5 : 2) });
  for (const n of [1, 2, 3, 4]) void g.add('bulk', n);
  void g.add('interactive', 10);
  void g.add('interactive', 11);
  expect(sent).toEqual([{ key: 'interactive', items: [10, 11] }]);
  void g.add('bulk', 5);
  expect(sent.at(-1)).toEqual({ key: 'bulk', items: [1, 2, 3, 4, 5] });
});

it('sends a partial group once its oldest item has lingered, and a shorter linger brings it forward', async () => {
  const { g, sent } = gatherer();
  void g.add('a', 1);
  await vi.advanceTimersByTimeAsync(600);
  void g.add('a', 2);
  await vi.advanceTimersByTimeAsync(399);
  expect(sent).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(sent).toEqual([{ key: 'a', items: [1, 2] }]);

  void g.add('a', 3);
  void g.add('a', 4, { lingerMs: 50 });
  await vi.advanceTimersByTimeAsync(50);
  expect(sent.at(-1)).toEqual({ key: 'a', items: [3, 4] });
  // A longer linger never puts a due group back.
  void g.add('a', 5, { lingerMs: 100 });
  void g.add('a', 6, { lingerMs: 5_000 });
  await vi.advanceTimersByTimeAsync(100);
  expect(sent.at(-1)).toEqual({ key: 'a', items: [5, 6] });
});

it('sends a partial group as soon as nothing more can join it', async () => {
  let underWay = 2;
  const { g, sent } = gatherer({ ready: () => underWay === 0 });
  void g.add('a', 1);
  underWay = 1;
  g.consider();
  expect(sent).toEqual([]);
  underWay = 0;
  g.consider();
  expect(sent).toEqual([{ key: 'a', items: [1] }]);
  // Asked on add too: with nothing under way, an item goes at once.
  void g.add('a', 2);
  expect(sent.at(-1)).toEqual({ key: 'a', items: [2] });
});

it('holds a due group until the lull; what arrives meanwhile joins it', async () => {
  let lull!: () => void;
  const { g, sent } = gatherer({ lull: () => new Promise<void>((r) => (lull = r)) });
  void g.add('a', 1);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(sent).toEqual([]);
  void g.add('a', 2);
  await vi.advanceTimersByTimeAsync(10_000);
  expect(sent).toEqual([]);
  lull();
  await vi.advanceTimersByTimeAsync(0);
  expect(sent).toEqual([{ key: 'a', items: [1, 2] }]);
});

it('merges items of one id into one, every add of it told the same result', async () => {
  const { g, sent } = gatherer({ merge: (kept, added) => Math.max(kept, added) });
  const first = g.add('a', 1, { id: 'x' });
  const second = g.add('a', 7, { id: 'x' });
  void g.add('a', 2, { id: 'y' });
  expect(g.count('a')).toBe(2);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(sent).toEqual([{ key: 'a', items: [7, 2] }]);
  expect(await Promise.all([first, second])).toEqual([1, 1]);
});

it('rejects every add of a failed send with its error', async () => {
  const g = new Gatherer<string, number>({
    size: () => 2,
    linger: () => 1_000,
    send: async () => {
      throw new Error('the CRM is down');
    },
  });
  const adds = [g.add('a', 1), g.add('a', 2)];
  await expect(Promise.all(adds)).rejects.toThrow('the CRM is down');
  await expect(adds[1]).rejects.toThrow('the CRM is down');
});

it('flushes past linger and lull, and drain waits for every send', async () => {
  const finish: (() => void)[] = [];
  const sent: number[][] = [];
  const g = new Gatherer<string, number>({
    size: () => 10,
    linger: () => 60_000,
    lull: () => new Promise(() => undefined),
    send: (_key, items) => {
      sent.push(items);
      return new Promise<void>((r) => finish.push(r));
    },
  });
  void g.add('a', 1);
  void g.add('b', 2, { lingerMs: 10 });
  // 'b' is due and waits for a lull that never comes; flushing sends it all the same.
  await vi.advanceTimersByTimeAsync(10);
  let drained = false;
  const draining = g.drain().then(() => (drained = true));
  expect(sent).toEqual([[1], [2]]);
  await vi.advanceTimersByTimeAsync(0);
  expect(drained).toBe(false);
  finish[0]!();
  await vi.advanceTimersByTimeAsync(0);
  expect(drained).toBe(false);
  finish[1]!();
  await draining;
  expect(drained).toBe(true);
});
