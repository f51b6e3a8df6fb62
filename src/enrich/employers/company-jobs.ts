/**
 * Company enrichment for the companies people are linked with: one job per company per refresh period,
 * whichever instance or person asks first, and the company lane woken once they are stored.
 */
import type { CrmConnector } from '../../core/connector.js';
import type { Market } from '../../partner/schemas.js';
import { queueName } from '../jobs.js';
import type { EnqueuePort } from '../ports.js';

const DAY_MS = 86_400_000;

export interface CompanyJobsOptions {
  connector: Required<Pick<CrmConnector, 'connection' | 'companyObjectType'>>;
  enqueue: EnqueuePort;
  refreshAfterDays: number;
}

export class CompanyJobs {
  /** Companies already given an enrichment job in this period, by this process. */
  private readonly queued = new Map<string, number>();

  constructor(private readonly options: CompanyJobsOptions) {}

  async queue(companies: { companyId: string; market: Market }[]): Promise<void> {
    const { connector } = this.options;
    const period = Math.floor(Date.now() / (this.options.refreshAfterDays * DAY_MS));
    const fresh = new Map(
      companies.filter((c) => this.queued.get(c.companyId) !== period).map((c) => [c.companyId, c.market]),
    );
    if (fresh.size === 0) return;
    if (this.queued.size > 100_000) this.queued.clear();
    for (const id of fresh.keys()) this.queued.set(id, period);
    const objectType = connector.companyObjectType;
    await this.options.enqueue.enqueue(
      [...fresh].map(([recordId, market]) => ({
        queue: queueName(connector.connection, objectType),
        // One job per company per refresh period, whichever instance or person asks first.
        dedupKey: `company:${connector.connection}:${objectType}:${recordId}:${period}`,
        priority: 'bulk',
        // The person's market stands in while the company record names no country of its own.
        data: { connection: connector.connection, objectType, recordId, reason: 'company', market },
      })),
    );
  }
}
