import { Redis } from 'ioredis';
import { URGENT_GRACE_MS, type DispatchWindow, type WindowRule } from './dispatch-window.js';
import { LimiterError } from './limiter-error.js';

/**
 * The same rule as LocalDispatchWindow, applied atomically in Redis so every process sharing the
 * id shares one log and one pace. Time comes from the Redis server, so the processes' clocks
 * need not agree. The braces put both keys in one hash slot, as Redis Cluster requires.
 */
const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local max = tonumber(ARGV[1])
local horizon = tonumber(ARGV[2])
local spacing = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - horizon)
local n = redis.call('ZCARD', KEYS[1])
local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
local wait = nextAt - now
if n >= max then
  local e = redis.call('ZRANGE', KEYS[1], n - max, n - max, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + horizon - now)
end
local urgentFor = ARGV[5]
local ttl = math.ceil(horizon * 2)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if urgentFor == '' then
  local u = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  if u[2] then wait = math.max(wait, math.min(tonumber(u[2]) - now, spacing)) end
end
if wait > 0 then
  if urgentFor ~= '' then
    redis.call('ZADD', KEYS[3], now + wait + tonumber(ARGV[6]), urgentFor)
    redis.call('PEXPIRE', KEYS[3], ttl)
  end
  return string.format('%.3f', wait)
end
if urgentFor ~= '' then redis.call('ZREM', KEYS[3], urgentFor) end
redis.call('ZADD', KEYS[1], now, ARGV[4])
if n + 1 > max then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - max) end
redis.call('SET', KEYS[2], string.format('%.3f', math.max(nextAt, now - tonumber(ARGV[7])) + spacing), 'PX', ttl)
redis.call('PEXPIRE', KEYS[1], ttl)
return '0'
`;

/** Moves one dispatch later; a ticket already out of the log needs nothing. */
const POSTPONE = `
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if at then redis.call('ZADD', KEYS[1], 'XX', tonumber(at) + tonumber(ARGV[2]), ARGV[1]) end
return 0
`;

export class RedisDispatchWindow implements DispatchWindow {
  private readonly redis: Redis;
  private readonly keys: [string, string, string];
  private readonly where: string;

  constructor(
    redisUrl: string,
    id: string,
    private readonly rule: WindowRule,
    onError: (error: Error) => void,
  ) {
    const url = new URL(redisUrl);
    this.where = `${url.hostname}:${url.port || '6379'}`;
    // Few retries per command: a limiter that cannot reach Redis should fail the work quickly and
    // visibly rather than hold it for minutes.
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 2, connectionName: `crm-enrich-limiter` });
    this.redis.on('error', onError);
    this.keys = [
      `crm-enrich:limiter:{${id}}:log`,
      `crm-enrich:limiter:{${id}}:pace`,
      `crm-enrich:limiter:{${id}}:urgent`,
    ];
  }

  async tryClaim(ticket: string, urgentFor?: string): Promise<number> {
    const { max, horizonMs, spacingMs, catchUpMs } = this.rule;
    try {
      return Number(
        await this.redis.eval(
          CLAIM,
          3,
          ...this.keys,
          max,
          horizonMs,
          spacingMs,
          ticket,
          urgentFor ?? '',
          URGENT_GRACE_MS,
          catchUpMs,
        ),
      );
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async postpone(ticket: string, byMs: number): Promise<void> {
    try {
      await this.redis.eval(POSTPONE, 1, this.keys[0], ticket, byMs);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async check(): Promise<void> {
    try {
      await this.redis.ping();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): LimiterError {
    return new LimiterError(
      'limiter_unavailable',
      `The shared rate limit in Redis at ${this.where} could not be checked (${(error as Error).message}). ` +
        'Check REDIS_URL and that Redis is running.',
      { cause: error },
    );
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
