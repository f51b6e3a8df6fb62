/** The lookup cache as the data-health report and the backfill's cost preview ask it: hit, miss or unknown per key. */
import type { CachedAnswers } from '../enrich/listing/fill-need.js';
import type { CacheKey } from '../enrich/ports.js';
import { lookupKeyString } from '../store/lookup-cache.js';
import type { Store } from '../store/store.js';

export function cachedAnswers(cache: Pick<Store['cache'], 'getMany'>): CachedAnswers {
  // As the pipeline's cache port keys them (src/app/store-ports.ts): a person's key has no market.
  const toKey = (key: CacheKey) => ({
    kind: key.kind,
    idType: key.by,
    value: key.value,
    ...(key.market === '*' ? {} : { market: key.market }),
  });
  return async (keys) => {
    const wanted = keys.map(toKey);
    const found = await cache.getMany(wanted);
    return wanted.map((k) => found.get(lookupKeyString(k))?.hit);
  };
}
