/**
 * What the CRM entry points (src/core/entry-point.ts) need from the running service: the on-demand
 * enrichment's view of the store and queue, the workflow steps kept (each runs once; a blocked one is
 * completed later), and the mappings that say which objects can be enriched.
 */
import type { CrmConnector } from '../core/connector.js';
import type { OnDemandDeps } from '../enrich/on-demand/on-demand.js';
import type { EnqueuePort } from '../enrich/ports.js';
import type { Store } from '../store/store.js';

export interface EntryPointContext {
  readonly store: {
    readonly recordView: Store['recordView'];
    readonly audit: Pick<Store['audit'], 'record'>;
    readonly queue: Pick<Store['queue'], 'lookup'>;
    readonly workflowCallbacks: Pick<Store['workflowCallbacks'], 'claim' | 'setJob' | 'conclude'>;
  };
  readonly ports: { readonly enqueue: EnqueuePort };
  readonly connectors: readonly CrmConnector[];
  readonly mappings: { get(crm: string, objectType: string): unknown };
}

/** The on-demand enrichment's view of the store and queue (src/enrich/on-demand/on-demand.ts). */
export function onDemandDeps(ctx: EntryPointContext): OnDemandDeps {
  return {
    enqueue: ctx.ports.enqueue,
    audit: async (key, limit) => (await ctx.store.recordView(key, limit)).audit,
    note: async (entries) => void (await ctx.store.audit.record(entries)),
    jobs: (queue, ids) => ctx.store.queue.lookup(queue, ids),
  };
}
