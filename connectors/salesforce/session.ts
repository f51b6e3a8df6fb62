/**
 * One Salesforce org's session and calls: the session is requested when first needed and again when
 * it expires (one retry on INVALID_SESSION_ID), every REST call is counted, and each passes the org's
 * API budget (api-budget.ts) and the connection's shared rate limiter first.
 */
import { Connection } from 'jsforce';
import { CrmError, type ConnectorStats } from '../../src/core/connector.js';
import type { Priority, RateLimiter } from '../../src/core/limiter.js';
import { logger } from '../../src/logger.js';
import { ApiBudget } from './api-budget.js';
import { canRefresh, requestSession, type SalesforceAuth, type Session } from './auth.js';
import { isConcurrentLimit, salesforceErrorCode, toCrmError } from './errors.js';

const log = logger('connector.salesforce');

/** The connector's options a session uses (see SalesforceConnectorOptions). */
export interface SessionOptions {
  auth: SalesforceAuth;
  orgId?: string;
  apiReserve?: number;
  interactiveReserve?: number;
  limitsRecheckMs?: number;
  limiter?: RateLimiter;
}

/** Functions, not methods: they close over the session and are handed around on their own. */
export interface SalesforceSession {
  /** The open connection, with a session requested when there is none. */
  connection: () => Promise<Connection>;
  /** One counted call, admitted by the API budget and the rate limiter at this priority. */
  call: <T>(operation: string, priority: Priority, send: (c: Connection) => Promise<T>) => Promise<T>;
  stats(): ConnectorStats;
  /** The org the OAuth token answer named (its identity URL), once a session exists; undefined for a given token. */
  orgId(): string | undefined;
  /** Forgets the connection; the next call requests a new session. */
  close(): void;
}

export function salesforceSession(options: SessionOptions, version: string): SalesforceSession {
  const byOperation: Record<string, number> = {};
  let calls = 0;
  let session: Session | undefined;
  let conn: Connection | undefined;
  let refreshing: Promise<void> | undefined;

  const countCall = (operation: string) => {
    calls += 1;
    byOperation[operation] = (byOperation[operation] ?? 0) + 1;
  };

  async function establish(): Promise<void> {
    byOperation['oauth.token'] = (byOperation['oauth.token'] ?? 0) + (options.auth.kind === 'token' ? 0 : 1);
    session = await requestSession(options.auth);
    if (options.orgId && session.orgId && session.orgId.slice(0, 15) !== options.orgId.slice(0, 15)) {
      throw new CrmError(
        'salesforce',
        'auth',
        `The credentials belong to org ${session.orgId}, not the configured SALESFORCE_ORG_ID ${options.orgId}.`,
      );
    }
    conn = new Connection({ instanceUrl: session.instanceUrl, accessToken: session.accessToken, version });
  }

  async function connection(): Promise<Connection> {
    if (refreshing) await refreshing;
    if (!conn) {
      refreshing ??= establish().finally(() => {
        refreshing = undefined;
      });
      await refreshing;
    }
    return conn as Connection;
  }

  /** One HTTP request to the REST API: one call in Salesforce's count, retried once with a new session on 401. */
  async function request<T>(operation: string, send: (c: Connection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const c = await connection();
      const token = c.accessToken;
      try {
        const result = await send(c);
        countCall(operation);
        observe(c);
        return result;
      } catch (err) {
        const code = salesforceErrorCode(err);
        if (code === 'INVALID_SESSION_ID' && attempt === 0 && canRefresh(options.auth)) {
          log.info({ operation }, 'salesforce session expired; requesting a new one');
          if (conn?.accessToken === token) conn = undefined;
          continue;
        }
        if (code === 'REQUEST_LIMIT_EXCEEDED' && !isConcurrentLimit(err instanceof Error ? err.message : String(err)))
          budget.exhausted();
        else if (code && code !== 'INVALID_SESSION_ID') {
          countCall(operation);
          observe(c);
        }
        throw toCrmError(err, operation);
      }
    }
  }

  /** Whether /limits may be read (see the budget's reader); the last Sforce-Limit-Info reading. */
  let limitsReadable = true;
  let lastObserved: { max: number; remaining: number } | undefined;
  function observe(c: Connection): void {
    const usage = c.limitInfo?.apiUsage;
    if (!usage) return;
    lastObserved = { max: usage.limit, remaining: Math.max(0, usage.limit - usage.used) };
    budget.observeUsage(usage.used, usage.limit);
  }

  /** Before any answer has said how many calls are left: let the call go, its answer will say. */
  const UNKNOWN_LIMITS = { max: 0, remaining: Number.POSITIVE_INFINITY };
  const budget = new ApiBudget(
    {
      reserve: options.apiReserve ?? 5000,
      interactiveReserve: options.interactiveReserve,
      recheckMs: options.limitsRecheckMs,
    },
    async () => {
      if (!limitsReadable) return lastObserved ?? UNKNOWN_LIMITS;
      let daily;
      try {
        daily = (await request('limits', (c) => c.limits())).DailyApiRequests;
      } catch (error) {
        // The Limits resource needs "View Setup and Configuration", which an integration user often
        // lacks; every answer's Sforce-Limit-Info header says the same, so read it from there.
        if (!(error instanceof CrmError) || error.details?.errorCode !== 'INSUFFICIENT_ACCESS') throw error;
        limitsReadable = false;
        log.warn(
          { connection },
          'the integration user may not read /limits (it needs View Setup and Configuration); the daily API ' +
            'allocation is read from the Sforce-Limit-Info header instead',
        );
        return lastObserved ?? UNKNOWN_LIMITS;
      }
      if (!daily)
        throw new CrmError(
          'salesforce',
          'unavailable',
          'Salesforce /limits did not report DailyApiRequests; try again later.',
        );
      return { max: daily.Max, remaining: daily.Remaining };
    },
  );

  async function call<T>(operation: string, priority: Priority, send: (c: Connection) => Promise<T>): Promise<T> {
    await budget.admit(priority);
    const run = () => request(operation, send);
    return options.limiter ? options.limiter.schedule(priority, run) : run();
  }

  return {
    connection,
    call,
    stats: () => {
      const allocation = budget.known();
      return {
        calls,
        byOperation: { ...byOperation },
        ...(allocation ? { limits: [{ max: allocation.max, windowSeconds: 86_400 }] } : {}),
      };
    },
    orgId: () => session?.orgId,
    close: () => {
      conn = undefined;
    },
  };
}
