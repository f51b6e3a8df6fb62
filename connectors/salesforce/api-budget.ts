/**
 * The org's 24-hour API allocation is shared with every other integration. The connector learns what
 * is left from `/limits` and from the `Sforce-Limit-Info` header on each answer, and stops bulk work
 * at a reserve; interactive work may go on down to a smaller reserve. Once Salesforce itself says the
 * allocation is spent (403 REQUEST_LIMIT_EXCEEDED), everything stops until a re-check shows room.
 */
import type { Priority } from '../../src/core/limiter.js';
import { CrmError } from '../../src/core/connector.js';

export interface BudgetOptions {
  /** Calls left to other integrations: bulk work stops when Remaining reaches it. */
  reserve: number;
  /** Interactive work stops here (default: a fifth of the reserve). */
  interactiveReserve?: number;
  /** How often a stopped connector re-reads /limits to see whether the rolling window freed calls. */
  recheckMs?: number;
  now?: () => number;
}

export interface ApiLimits {
  max: number;
  remaining: number;
}

export class ApiBudget {
  private limits: ApiLimits | undefined;
  private checkedAt = 0;
  private readonly interactiveReserve: number;

  constructor(
    private readonly options: BudgetOptions,
    private readonly readLimits: () => Promise<ApiLimits>,
  ) {
    this.interactiveReserve = options.interactiveReserve ?? Math.floor(options.reserve / 5);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Resolves when a call of this priority may go; throws CrmError 'daily_limit' when it may not. */
  async admit(priority: Priority): Promise<void> {
    const floor = priority === 'interactive' ? this.interactiveReserve : this.options.reserve;
    const stale = this.now() - this.checkedAt >= (this.options.recheckMs ?? 5 * 60_000);
    if (!this.limits || (this.limits.remaining <= floor && stale)) await this.refresh();
    const limits = this.limits;
    if (limits && limits.remaining <= floor) {
      const left = limits.remaining === 0 ? 'no' : `${limits.remaining} of ${limits.max}`;
      throw new CrmError(
        'salesforce',
        'daily_limit',
        `Salesforce org has ${left} daily API calls left, at or below the ${priority} reserve of ${floor}; ` +
          `${priority} work stops so other integrations keep working. ` +
          'It resumes as the 24-hour window frees calls ' +
          '(raise SALESFORCE_API_RESERVE to stop earlier, lower it to go further).',
        undefined,
        undefined,
        { remaining: limits.remaining, max: limits.max, reserve: floor, priority },
      );
    }
  }

  /** Updates from an `api-usage=used/max` reading. */
  observeUsage(used: number, max: number): void {
    this.limits = { max, remaining: Math.max(0, max - used) };
  }

  /** The org's 24-hour allocation as last read, once a reading has said it. */
  known(): ApiLimits | undefined {
    return this.limits && this.limits.max > 0 ? { ...this.limits } : undefined;
  }

  /** Salesforce refused a call because the allocation is spent. */
  exhausted(): void {
    this.limits = { max: this.limits?.max ?? 0, remaining: 0 };
    this.checkedAt = this.now();
  }

  private async refresh(): Promise<void> {
    this.checkedAt = this.now();
    this.limits = await this.readLimits();
  }
}
