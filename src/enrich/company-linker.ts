/**
 * A contact's employer is enriched once per domain, not once per contact: the domains of enriched
 * people are gathered, looked up in the CRM in batches (one search per 100 domains), and each company
 * found becomes one bulk job per refresh period, however many of its people arrive.
 */
import type { CrmConnector } from '../core/connector.js';
import { logger } from '../logger.js';
import { queueName } from './jobs.js';
import type { EnqueuePort } from './ports.js';

const log = logger('enrich.companies');
const DAY_MS = 86_400_000;

export interface CompanyLinkerOptions {
  connector: CrmConnector & Required<Pick<CrmConnector, 'findCompaniesByDomain' | 'companyObjectType'>>;
  enqueue: EnqueuePort;
  refreshAfterDays: number;
  /** Called once company jobs are stored, to wake the company lane. */
  wake: (objectType: string) => void;
  /** How long a domain's first mention waits for others to share its search (companies are bulk work). */
  lingerMs?: number;
}

export class CompanyLinker {
  private readonly pending = new Set<string>();
  /** Domains already looked for in this period, so each costs one search per period per process. */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly options: CompanyLinkerOptions) {}

  note(domain: string): void {
    const key = domain.toLowerCase();
    const period = this.period();
    if (this.seen.get(key) === period || this.pending.has(key)) return;
    if (this.seen.size > 100_000) this.seen.clear();
    this.pending.add(key);
    if (this.pending.size >= this.options.connector.batchSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs ?? 10_000);
  }

  /** Looks up what is pending now; resolves when every lookup under way is done. */
  async drain(): Promise<void> {
    this.flush();
    await this.flushing;
  }

  private period(): number {
    return Math.floor(Date.now() / (this.options.refreshAfterDays * DAY_MS));
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const domains = [...this.pending];
    this.pending.clear();
    const period = this.period();
    for (const d of domains) this.seen.set(d, period);
    this.flushing = this.flushing.then(() => this.link(domains, period)).catch((error: unknown) => {
      for (const d of domains) this.seen.delete(d);
      log.warn({ err: error, domains: domains.length }, 'could not look companies up by domain; they are tried again when their people next arrive');
    });
  }

  private async link(domains: string[], period: number): Promise<void> {
    const { connector } = this.options;
    const found = await connector.findCompaniesByDomain(domains, { priority: 'bulk' });
    if (found.size === 0) return;
    const objectType = connector.companyObjectType;
    const ids = [...new Set(found.values())];
    const { inserted } = await this.options.enqueue.enqueue(
      ids.map((recordId) => ({
        queue: queueName(connector.connection, objectType),
        // One job per company per refresh period, whichever instance or contact asks first.
        dedupKey: `company:${connector.connection}:${objectType}:${recordId}:${period}`,
        priority: 'bulk',
        data: { connection: connector.connection, objectType, recordId, reason: 'company' },
      })),
    );
    if (inserted > 0) this.options.wake(objectType);
  }
}
