/**
 * `npm run bench -- store [--backend pg|pglite] [--jobs n] [--rows n]`
 *
 * Measures the store where the service leans on it: enqueueing (batches of 100, deduplicated),
 * webhook-style ingest (batches of 10, several requests at once), claiming and completing jobs in
 * batches of 100, and picking 500 stale records out of a large state table. Runs in a schema of its
 * own (dropped afterwards) on DATABASE_URL or the local server, or on an in-memory PGlite.
 */
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Priority } from '../src/core/limiter.js';
import { queueName } from '../src/enrich/jobs.js';
import { openStore, type Store } from '../src/store/store.js';
import { fillSyntheticState } from '../test/support/db.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'pg' },
    jobs: { type: 'string', default: '20000' },
    rows: { type: 'string', default: '1000000' },
  },
});
const backend = values.backend === 'pglite' ? 'pglite' : 'pg';
const jobCount = Number(values.jobs);
const rows = Number(values.rows);
if (!Number.isInteger(jobCount) || jobCount < 100) throw new Error('--jobs must be a whole number of at least 100');
// Fewer rows would leave fewer than 500 stale records of one object to pick.
if (!Number.isInteger(rows) || rows < 10_000) throw new Error('--rows must be a whole number of at least 10000');
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_store_${process.pid}`;
const concurrency = backend === 'pg' ? 8 : 1;
const Q = queueName('hubspot', 'contact');

const pglite = backend === 'pglite' ? await PGlite.create() : undefined;
const store = await openStore(pglite ? { pglite, schema } : { databaseUrl, schema, poolSize: 12 });

async function inParallel<T>(items: T[], workers: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

const chunks = <T>(list: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

const event = (i: number, prefix: string) => {
  const priority: Priority = i % 10 === 0 ? 'interactive' : 'bulk';
  return {
    data: { connection: 'default', objectType: 'contact', recordId: String(i) },
    dedupKey: `${prefix}:62515:contact.creation:${i}:1700000000000`,
    priority,
  };
};

async function enqueueBench(s: Store): Promise<number> {
  const jobs = Array.from({ length: jobCount }, (_, i) => event(i, 'bulk'));
  const started = performance.now();
  await inParallel(chunks(jobs, 100), concurrency, async (batch) => {
    await s.queue.enqueue(Q, batch);
  });
  return jobCount / ((performance.now() - started) / 1000);
}

async function ingestBench(s: Store): Promise<{ perSecond: number; p99: number }> {
  const events = Array.from({ length: Math.min(jobCount, 10_000) }, (_, i) => event(i, 'hook'));
  const latencies: number[] = [];
  const started = performance.now();
  await inParallel(chunks(events, 10), concurrency, async (batch) => {
    const t0 = performance.now();
    await s.queue.enqueue(Q, batch);
    latencies.push(performance.now() - t0);
  });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: events.length / seconds, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
}

async function drainBench(s: Store): Promise<{ perSecond: number; done: number }> {
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: backend === 'pg' ? 4 : 1 }, async () => {
      for (;;) {
        const batch = await s.queue.claim(Q, 100);
        if (batch.length === 0) return;
        const completed = await s.queue.complete(Q, batch);
        done += completed;
      }
    }),
  );
  return { perSecond: done / ((performance.now() - started) / 1000), done };
}

async function staleBench(s: Store): Promise<number> {
  const t0 = performance.now();
  await fillSyntheticState(s.db, schema, rows);
  console.log(`state rows generated: ${rows} in ${Math.round(performance.now() - t0)} ms`);
  const times: number[] = [];
  let cursor;
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    const page = await s.state.pickStale({
      connection: 'default',
      objectType: 'contact',
      limit: 500,
      after: i % 2 ? cursor : undefined,
    });
    times.push(performance.now() - t);
    if (page.records.length !== 500) throw new Error(`expected 500 stale records, got ${page.records.length}`);
    cursor = page.next;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

let line: string;
try {
  const enqueuePerS = await enqueueBench(store);
  console.log(`enqueue: ${jobCount} jobs in batches of 100, ${concurrency} at once: ${Math.round(enqueuePerS)} jobs/s`);
  const ingest = await ingestBench(store);
  console.log(
    `ingest: batches of 10, ${concurrency} at once: ${Math.round(ingest.perSecond)} events/s, ` +
      `p99 ${ingest.p99.toFixed(1)} ms per batch`,
  );
  const duplicate = await store.queue.enqueue(Q, [event(1, 'hook')]);
  if (duplicate.enqueued !== 0) throw new Error('a redelivered event was enqueued twice');
  const drain = await drainBench(store);
  const left = await store.queue.depth(Q);
  if (left !== 0 || drain.done !== jobCount + Math.min(jobCount, 10_000))
    throw new Error(`drain left ${left} jobs and completed ${drain.done}`);
  console.log(`claim+complete: ${drain.done} jobs in batches of 100: ${Math.round(drain.perSecond)} jobs/s`);
  const staleMs = await staleBench(store);
  console.log(`stale pick: 500 of ${rows} rows, median of 21: ${staleMs.toFixed(2)} ms`);
  line =
    `BENCH store backend=${backend} enqueue_per_s=${Math.round(enqueuePerS)} ` +
    `jobs_per_s=${Math.round(drain.perSecond)} stale_pick_ms=${staleMs.toFixed(2)} rows=${rows}`;
} finally {
  await store.db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await store.close();
  await pglite?.close();
}
console.log(line);
