import { describe, expect, it } from 'vitest';
import { FilterOptionsCache } from '../../../src/partner/filter-options-cache.js';

describe('FilterOptionsCache', () => {
  it('answers from memory until the TTL runs out, then loads again', async () => {
    const clock = { t: 0 };
    const cache = new FilterOptionsCache<number>(1000, 10, () => clock.t);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('q', load)).toBe(1);
    clock.t = 999;
    expect(await cache.get('q', load)).toBe(1);
    clock.t = 1000;
    expect(await cache.get('q', load)).toBe(2);
    expect(await cache.get('other', load)).toBe(3);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new FilterOptionsCache<string>(60_000, 2);
    let loads = 0;
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => `${key}${++loads}`);
    expect(cache.size).toBe(2);
    expect(await cache.get('a', async () => `a${++loads}`)).toBe('a4');
    expect(await cache.get('c', async () => 'reloaded')).toBe('c3');
  });
});
