/** Builds the data-health scans over the store: record states, the lookup cache and the kept runs. */
import type { CrmConnector } from '../core/connector.js';
import { DataHealth } from '../enrich/listing/health.js';
import type { StatePort } from '../enrich/ports.js';
import type { CompiledMapping } from '../mapping/compile.js';
import type { Store } from '../store/store.js';
import { cachedAnswers } from './cached-answers.js';

export function dataHealth(options: {
  store: Pick<Store, 'cache' | 'health'>;
  state: StatePort;
  freeMail: { has(domain: string): boolean };
  refreshAfterDays: number;
  connectors: CrmConnector[];
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
}): DataHealth {
  const { store } = options;
  return new DataHealth(
    {
      runs: store.health,
      states: (connection, objectType, ids) => options.state.getMany(connection, objectType, ids),
      cached: cachedAnswers(store.cache),
      freeMail: options.freeMail,
      refreshAfterDays: options.refreshAfterDays,
    },
    options.connectors,
    options.mapping,
  );
}
