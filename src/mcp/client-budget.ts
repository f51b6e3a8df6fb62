/**
 * Each MCP client's share of the day's partner credits (MCP_CLIENT_DAILY_LOOKUP_SHARE percent of
 * PARTNER_DAILY_LOOKUP_BUDGET), so one assistant cannot spend what new CRM records need. Reserve, then
 * spend, as everywhere else (src/store/daily-reservations.ts): a call takes what it may spend from the
 * client's counter for today in one statement before anything goes to the partner, and gives back what
 * it did not spend. The service's own budget and hard cap still apply underneath.
 */
import { AppError } from '../core/errors.js';
import type { DailyCounters } from '../store/daily-counters.js';
import type { DailyReservations } from '../store/daily-reservations.js';

/** Today's count of one client is the daily counter of this name and the client id. */
const COUNTER_PREFIX = 'mcp_client_credits:';

export class ClientBudgetExhaustedError extends AppError {
  constructor(limit: number) {
    super(
      'mcp_client_budget_exhausted',
      `this client's share of today's partner credits (${limit}, MCP_CLIENT_DAILY_LOOKUP_SHARE of ` +
        'PARTNER_DAILY_LOOKUP_BUDGET) is spent; it renews at midnight UTC',
      'transient',
      { limit },
    );
  }
}

export interface ClientBudgetOptions {
  reservations: Pick<DailyReservations, 'reserve'>;
  counters: Pick<DailyCounters, 'get'>;
  /** Credits one client may spend per UTC day. */
  dailyLimit: number;
}

export class ClientBudget {
  constructor(private readonly options: ClientBudgetOptions) {}

  get dailyLimit(): number {
    return this.options.dailyLimit;
  }

  /** Credits the client spent (or holds for calls under way) today. */
  used(clientId: string): Promise<number> {
    return this.options.counters.get(COUNTER_PREFIX + clientId);
  }

  /**
   * Runs `work` with up to `wanted` credits of the client's share reserved for it; `work` learns how
   * many it got and says how many it spent, and the rest goes back, also when it throws (a refused or
   * failed call spent nothing the client should pay for). Nothing left: ClientBudgetExhaustedError,
   * and `work` does not run.
   */
  async spend<T>(
    clientId: string,
    wanted: number,
    work: (granted: number) => Promise<{ value: T; spent: number }>,
  ): Promise<T> {
    const reservation = await this.options.reservations.reserve(
      COUNTER_PREFIX + clientId,
      wanted,
      this.options.dailyLimit,
    );
    try {
      if (reservation.granted === 0) throw new ClientBudgetExhaustedError(this.options.dailyLimit);
      const { value, spent } = await work(reservation.granted);
      for (let i = 0; i < spent; i++) reservation.take();
      return value;
    } finally {
      await reservation.close();
    }
  }
}
