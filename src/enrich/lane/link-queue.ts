/**
 * The company links of a lane's written records, gathered into shared CRM calls. Records written apart
 * (people created moments apart, each written on its own) learn their employers together, when one
 * search and creation resolves their domains: their links then go in one association batch, not one
 * each. Links are bulk work that can wait: they go at a lull in people's work (people-first.ts), or
 * at once when a batch is full or the lane is stopping.
 */
import type { CompanyLinkPlan } from '../employers/company-link.js';
import type { CrmRecord } from '../../core/connector.js';
import { associate, type LinkContext } from './lane-links.js';
import type { PeopleFirst } from './people-first.js';

/** What a caller is told of its own records' links; each item's link carries its outcome. */
export interface LinkReport {
  failed: number;
  error?: unknown;
}

type Linkable = { record: CrmRecord; link?: CompanyLinkPlan };

interface Waiting {
  items: Linkable[];
  done: (report: LinkReport) => void;
}

export interface LinkQueueOptions {
  links: LinkContext;
  /** The most links one call carries. */
  batchSize: number;
  /** Where the lull is waited for; without it, links go once the current turn of the event loop ends. */
  people?: Pick<PeopleFirst, 'lull'>;
  /** The longest links wait for a lull (default 5 s). */
  holdMs?: number;
  /** Once aborted (the lane is stopping), links go at once. */
  stopping?: AbortSignal;
}

export class LinkQueue {
  private waiting: Waiting[] = [];
  private gathering = false;

  constructor(private readonly options: LinkQueueOptions) {
    options.stopping?.addEventListener('abort', () => this.send(), { once: true });
  }

  /** Links these records' companies, sharing the call with others gathered meanwhile. */
  link<W extends Linkable>(items: W[]): Promise<LinkReport> {
    if (!items.some((w) => w.link?.action === 'associate')) return Promise.resolve({ failed: 0 });
    return new Promise((done) => {
      this.waiting.push({ items, done });
      if (this.count() >= this.options.batchSize || this.options.stopping?.aborted) this.send();
      else this.gather();
    });
  }

  private count(): number {
    return this.waiting.reduce((n, w) => n + w.items.length, 0);
  }

  /**
   * Links resolved in the same moment (one employer batch answers many records) join before the call,
   * which waits for the current turn of the event loop to end and then for a lull.
   */
  private gather(): void {
    if (this.gathering) return;
    this.gathering = true;
    setImmediate(() => {
      void (this.options.people?.lull(this.options.holdMs ?? 5_000) ?? Promise.resolve()).then(() => {
        this.gathering = false;
        this.send();
      });
    });
  }

  private send(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    void associate(
      this.options.links,
      batch.flatMap((w) => w.items),
      'bulk',
    ).then((report) => {
      for (const w of batch) {
        const failed = w.items.filter((i) => i.link?.action === 'associate' && i.link.outcome === 'failed').length;
        w.done(failed && report.error !== undefined ? { failed, error: report.error } : { failed });
      }
    });
  }
}
