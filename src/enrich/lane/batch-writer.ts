/**
 * The writing step of a lane's record runs, one buffered batch at a time: the batch's enrichments in one
 * CRM write (its identity values kept in Postgres first, so their change events are known as ours),
 * then, once each record's employer is known, the company links in one call, then every outcome settled.
 * A record whose write failed is failed alone; one whose link could not be found is retried for it.
 */
import type { EventEmitter } from 'node:events';
import type { CrmConnector } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { logger } from '../../logger.js';
import type { LaneEvents } from './lane-events.js';
import type { Work } from './lane-options.js';
import type { LaneSettler } from './lane-settler.js';
import type { Ledger } from './ledger.js';
import type { LinkQueue } from './link-queue.js';
import type { JobFailure, PendingWritesPort } from '../ports.js';
import { runOutcome } from '../record/run-outcome.js';
import type { BufferedWrite } from './write-buffer.js';

const log = logger('enrich.lane');

export interface BatchWriterOptions {
  connector: CrmConnector;
  objectType: string;
  queue: string;
  mapping: () => CompiledMapping;
  /** Company links, gathered with other flushes' into shared calls. */
  links: Pick<LinkQueue, 'link'>;
  settler: LaneSettler;
  ledger: Ledger;
  writing?: Pick<PendingWritesPort, 'add'>;
  events: Pick<EventEmitter<LaneEvents>, 'emit'>;
}

export class BatchWriter {
  constructor(private readonly options: BatchWriterOptions) {}

  async write(writes: BufferedWrite<Work>[]): Promise<void> {
    const people = writes.filter((w) => w.item.priority === 'interactive');
    // A gathered bulk batch larger than one CRM call (a Salesforce ingest job) that a person's write
    // joined: the person's writes go on their own, and the bulk ones keep bulk priority and their one job.
    if (people.length > 0 && people.length < writes.length && writes.length > this.options.connector.batchSize) {
      await Promise.all([
        this.writeAt(people, 'interactive'),
        this.writeAt(
          writes.filter((w) => w.item.priority !== 'interactive'),
          'bulk',
        ),
      ]);
      return;
    }
    await this.writeAt(writes, people.length > 0 ? 'interactive' : 'bulk');
  }

  private async writeAt(writes: BufferedWrite<Work>[], priority: Priority): Promise<void> {
    const { settler } = this.options;
    try {
      const written = await this.send(writes, priority);
      for (const w of written) this.options.ledger.move(w.recordId, 'written');
      // What the write did not wait for (the link still being found, the job-change observation) is
      // awaited after it.
      await Promise.all(written.map(async (w) => w.item.following));
      const linked = written.filter((w) => w.item.followingError === undefined);
      // The enrichment is written; the job is retried for the rest, and its second run writes nothing new.
      for (const w of written.filter((x) => x.item.followingError !== undefined))
        await settler.fail(w.item.jobs, w.item.followingError);
      if (linked.length === 0) return;
      // Links are bulk work: the next person's read and write go ahead of them at the CRM's rate limit.
      const links = await this.options.links.link(linked.map((w) => w.item));
      if (links.error)
        log.warn(
          { queue: this.options.queue, records: links.failed, err: links.error },
          'could not link records with their companies',
        );
      await settler.settle(
        linked.map((w) =>
          runOutcome({ recordId: w.recordId, jobs: w.item.jobs, state: w.item.state }, w.item.planned!, {
            written: w.properties,
            link: w.item.link,
          }),
        ),
      );
      this.announce(linked);
    } catch (error) {
      await settler.fail(
        writes.flatMap((w) => w.item.jobs),
        error,
      );
    } finally {
      this.options.ledger.release(writes.map((w) => w.recordId));
    }
  }

  /** One CRM write for the records with values to write; returns those written (or with only a link to make). */
  private async send(writes: BufferedWrite<Work>[], priority: Priority): Promise<BufferedWrite<Work>[]> {
    const { connector, objectType, settler } = this.options;
    // A record that only needs its company link (HubSpot association) has nothing to update.
    const updates = writes.filter((w) => Object.keys(w.properties).length > 0);
    if (updates.length === 0) return writes;
    await this.keepIdentityWrites(updates);
    const results = await connector.writeRecords(
      objectType,
      updates.map((w) => ({ id: w.recordId, properties: w.properties })),
      { priority },
    );
    const resultOf = new Map(updates.map((w, i) => [w, results[i]]));
    const ok: BufferedWrite<Work>[] = [];
    for (const write of writes) {
      const result = resultOf.get(write);
      if (!resultOf.has(write) || result?.ok) {
        ok.push(write);
        continue;
      }
      const failure: JobFailure = {
        code: result?.error?.code ?? 'write_failed',
        message: result?.error?.message ?? 'the CRM gave no result for this record',
        retryable: result?.error?.retryable ?? true,
      };
      await settler.fail(write.item.jobs, failure);
    }
    return ok;
  }

  /**
   * The match-property values about to be written, kept in Postgres first: the CRM announces them as
   * changes, possibly before this write is settled, and the intake must know them for ours.
   */
  private async keepIdentityWrites(updates: BufferedWrite<Work>[]): Promise<void> {
    const { writing, connector, objectType } = this.options;
    if (!writing) return;
    const identity = new Set(this.options.mapping().document.match.map((m) => m.property));
    const values = updates.flatMap((w) => {
      const kept = Object.entries(w.properties).filter(([property]) => identity.has(property));
      return kept.length ? [{ recordId: w.recordId, values: Object.fromEntries(kept) }] : [];
    });
    await writing.add(connector.connection, objectType, values);
  }

  /** Every enriched record is logged at info, whichever lane it took; the webhook-to-write times go out. */
  private announce(done: BufferedWrite<Work>[]): void {
    for (const w of done) {
      const job = w.item.jobs[0]!;
      log.info(
        {
          queue: this.options.queue,
          recordId: w.recordId,
          reason: job.data.reason,
          priority: w.item.priority,
          written: Object.keys(w.properties),
        },
        'enriched a record',
      );
    }
    const receivedAt = done.flatMap((w) => w.item.jobs.map((j) => j.data.receivedAt).filter((t): t is string => !!t));
    this.options.events.emit('written', { receivedAt });
  }
}
