/** Builds the data-health scans over the store: record states, the lookup cache and the kept runs. */
import type { CrmConnector } from '../core/connector.js';
import { DataHealth } from '../enrich/listing/health.js';
import type { CacheKey, StatePort } from '../enrich/ports.js';
import type { CompiledMapping } from '../mapping/compile.js';
import { lookupKeyString } from '../store/lookup-cache.js';
import type { Store } from '../store/store.js';

export function dataHealth(options: {
  store: Pick<Store, 'cache' | 'health'>;
  state: StatePort;
  freeMail: { has(domain: string): boolean };
  refreshAfterDays: number;
  connectors: CrmConnector[];
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
}): DataHealth {
  const { store } = options;
  // As the pipeline's cache port keys them (src/app/store-ports.ts): a person's key has no market.
  const toKey = (key: CacheKey) => ({
    kind: key.kind,
    idType: key.by,
    value: key.value,
    ...(key.market === '*' ? {} : { market: key.market }),
  });
  return new DataHealth(
    {
      runs: store.health,
      states: (connection, objectType, ids) => options.state.getMany(connection, objectType, ids),
      async cached(keys) {
        const wanted = keys.map(toKey);
        const found = await store.cache.getMany(wanted);
        return wanted.map((k) => found.get(lookupKeyString(k))?.hit);
      },
      freeMail: options.freeMail,
      refreshAfterDays: options.refreshAfterDays,
    },
    options.connectors,
    options.mapping,
  );
}
