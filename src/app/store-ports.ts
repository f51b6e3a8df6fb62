/** Binds the pipeline's narrow ports to the Postgres store. */
import { EnrichJobData, type EnrichJob } from '../enrich/jobs.js';
import type { CacheKey, StorePorts } from '../enrich/ports.js';
import { priorityOf } from '../store/queue.js';
import type { Store } from '../store/store.js';

export function storePorts(store: Store): StorePorts {
  const cacheKey = (key: CacheKey) => ({
    kind: key.kind,
    idType: key.by,
    value: key.value,
    ...(key.market === '*' ? {} : { market: key.market }),
  });
  return {
    queue: {
      async claim(queue, max) {
        const jobs = await store.queue.claim<EnrichJobData>(queue, max);
        const runnable: EnrichJob[] = [];
        for (const j of jobs) {
          const data = EnrichJobData.parse(j.data);
          const foreign = foreignAccount(store, data);
          if (foreign) {
            await store.queue.park(queue, j, foreign);
            continue;
          }
          runnable.push({ id: j.id, data, priority: priorityOf(j.priority), retryCount: j.retryCount });
        }
        return runnable;
      },
      complete: (queue, jobs) => store.queue.complete(queue, jobs).then(() => undefined),
      fail: (queue, job, failure) => store.queue.fail(queue, job, failure).then(() => undefined),
      release: (queue, jobs, delayMs) => store.queue.release(queue, jobs, delayMs).then(() => undefined),
      heartbeat: (queue, jobs) => store.queue.heartbeat(queue, jobs).then(() => undefined),
    },
    enqueue: {
      async enqueue(jobs) {
        const byQueue = new Map<string, typeof jobs>();
        for (const job of jobs) byQueue.set(job.queue, [...(byQueue.get(job.queue) ?? []), job]);
        let inserted = 0;
        let duplicates = 0;
        const ids: string[] = [];
        for (const [queue, list] of byQueue) {
          const result = await store.queue.enqueue(
            queue,
            list.map((j) => {
              const account = store.accounts.of(j.data.connection);
              // The same CRM event key in another account is another event: the key names the account.
              return {
                data: account ? { ...j.data, account } : j.data,
                dedupKey: account ? `${account}:${j.dedupKey}` : j.dedupKey,
                priority: j.priority,
              };
            }),
          );
          inserted += result.enqueued;
          duplicates += result.duplicates;
          ids.push(...result.ids);
        }
        return { inserted, duplicates, ids };
      },
    },
    state: {
      async getMany(connection, objectType, recordIds) {
        const rows = await store.state.getMany(connection, objectType, recordIds);
        return new Map(
          [...rows].map(([id, { lastWritten, updatedAt: _, ...rest }]) => [
            id,
            {
              ...rest,
              lastWritten: Object.fromEntries(
                Object.entries(lastWritten).filter((e): e is [string, string] => e[1] !== null),
              ),
            },
          ]),
        );
      },
      async upsertMany(rows) {
        await store.state.upsertMany(rows);
      },
      async store(rows, audit) {
        await store.db.transaction(async (tx) => {
          if (rows.length) await store.state.upsertMany(rows, tx);
          if (audit.length) await store.audit.record(audit, tx);
          // The writes these outcomes conclude are in the states now: their pending rows are done.
          const settled = new Map<string, { connection: string; objectType: string; ids: string[] }>();
          for (const r of rows) {
            const key = `${r.connection}\u0000${r.objectType}`;
            const group = settled.get(key) ?? { connection: r.connection, objectType: r.objectType, ids: [] };
            group.ids.push(r.recordId);
            settled.set(key, group);
          }
          for (const g of settled.values()) await store.pendingWrites.clear(g.connection, g.objectType, g.ids, tx);
        });
      },
    },
    audit: {
      async append(entries) {
        await store.audit.record(entries);
      },
    },
    cache: {
      async get(key) {
        const entry = await store.cache.get(cacheKey(key));
        if (!entry) return undefined;
        return entry.hit ? { found: true, data: entry.response as Record<string, unknown> } : { found: false };
      },
      async put(key, entry) {
        await store.cache.putMany([
          { key: cacheKey(key), hit: entry.found, ...(entry.found ? { response: entry.data } : {}) },
        ]);
      },
    },
    // The store's counters and settings are the ports as they are.
    counters: store.counters,
    erasure: {
      eraseRecord: async (connection, objectType, recordId) => ({
        ...(await store.erasure.eraseRecord({ connection, objectType, recordId })),
      }),
      eraseEmail: async (email) => ({ ...(await store.erasure.eraseEmail(email)) }),
      mergeState: async (connection, objectType, survivorId, mergedIds) => {
        await store.state.merge(connection, objectType, survivorId, mergedIds);
      },
    },
    stale: {
      async pickStale(connection, objectType, limit, now, after) {
        const page = await store.state.pickStale({ connection, objectType, limit, now, ...(after ? { after } : {}) });
        return {
          records: page.records
            .filter((r) => r.nextRefreshAt)
            .map((r) => ({ recordId: r.recordId, nextRefreshAt: r.nextRefreshAt! })),
          ...(page.next ? { next: page.next } : {}),
        };
      },
      async known(connection, objectType, recordIds) {
        return new Set((await store.state.getMany(connection, objectType, recordIds)).keys());
      },
    },
    kv: {
      get: (key) => store.settings.get(store.accounts.settingKey(key)),
      set: (key, value) => store.settings.set(store.accounts.settingKey(key), value),
    },
    created: store.created,
    writing: store.pendingWrites,
  };
}

/**
 * Why a job may not run: it was stored for another account than the one its connection is on now
 * (the portal or org behind the connection changed). Its record id names another record here.
 * Jobs stored before jobs named their account run as the connection's current account's, as its
 * state rows do (see connection-accounts.ts).
 */
function foreignAccount(store: Store, data: EnrichJobData) {
  const current = store.accounts.of(data.connection);
  if (!data.account || data.account === current) return undefined;
  return {
    code: 'account_changed',
    message:
      `job stored for account ${data.account} of connection ${data.connection}, which is now on ` +
      `account ${current || '(not read)'}: not run against the new account's records`,
    retryable: false,
  };
}
