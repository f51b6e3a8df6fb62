/**
 * The partner sandbox: an HTTP server that answers as the partner API's specification says, over
 * deterministic synthetic data, so the client, the tests, the benchmarks and a first run of the
 * service all have a partner to talk to. Also the control endpoints under /__sandbox/.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { logger } from '../../logger.js';
import { createDataset, type PartnerDataset } from './dataset.js';
import { filterOptions } from './filter-options.js';
import { SandboxHttpError } from './http-error.js';
import { moveJobs } from './job-moves.js';
import { lookupCompany, lookupPerson } from './lookups.js';
import { searchPeople } from './people-search.js';
import { Prng } from './prng.js';
import { RateWindow, type KeyStats } from './rate-window.js';
import { sampleIdentifiers } from './sample.js';

export interface PartnerSandboxOptions {
  /** 0 picks a free port (tests). */
  port?: number;
  host?: string;
  /** Added to every API response. */
  latencyMs?: number;
  /** 0..1: share of authenticated requests answered 500 with the generic error body. */
  failRate?: number;
  /** 0..1: share of authenticated requests never answered (the client's timeout ends them). */
  timeoutRate?: number;
  /** 429 bursts: every `everyMs`, every request is refused with 429 for `forMs` (an overloaded gateway). */
  bursts?: { everyMs: number; forMs: number };
  seed?: number;
  companies?: number;
  people?: number;
  rateLimitPerSecond?: number;
  /** Keys that belong to an organisation; default `sandbox-key`. */
  keys?: string[];
  /** 0..1: share of the people who change jobs before the sandbox answers anything (POST /__sandbox/job-changes). */
  jobChangesShare?: number;
}

export interface SandboxStats {
  /** Per valid API key. */
  keys: Record<string, KeyStats>;
  /** Requests refused with 401 or 403. */
  unauthorized: number;
  /** Requests answered 500 on purpose (fail rate). */
  injectedFailures: number;
  /** Requests left unanswered on purpose (timeout rate). */
  injectedTimeouts: number;
  /** Requests refused with 429 during a burst. */
  injectedBursts: number;
  /** Requests that reached an endpoint (found or not), by endpoint (`GET /people`, `GET /company`, ...). */
  byEndpoint: Record<string, number>;
  /**
   * How late the sandbox's own event loop ran, in ms (p99 and the worst): arrivals are counted when the
   * loop takes them in, so a held loop counts requests that came evenly as if they came together.
   */
  loopDelayMs: { p99: number; max: number };
}

/** The faults the sandbox injects on purpose; each 0 (or no bursts) by default. */
export interface PartnerFaults {
  failRate: number;
  timeoutRate: number;
  bursts?: { everyMs: number; forMs: number };
}

export interface PartnerSandbox {
  url: string;
  port: number;
  dataset: PartnerDataset;
  setFailRate(rate: number): void;
  setFaults(faults: Partial<PartnerFaults>): void;
  stats(): SandboxStats;
  resetStats(): void;
  close(): Promise<void>;
}

export const SANDBOX_KEY = 'sandbox-key';
export const SANDBOX_KEY_NO_ORG = 'sandbox-key-no-org';
const MAX_BODY_BYTES = 1024 * 1024;
/** The status of an answer left unsent (an injected timeout): the client gives up waiting. */
const NO_ANSWER = 0;
const log = logger('partner.sandbox');

type Handler = (dataset: PartnerDataset, query: URLSearchParams, body: unknown) => unknown;
const ROUTES: Record<string, { method: string; handler: Handler }> = {
  '/company': { method: 'GET', handler: (d, q) => lookupCompany(d, q) },
  '/people': { method: 'GET', handler: (d, q) => lookupPerson(d, q) },
  '/people/search': { method: 'POST', handler: (d, _q, body) => searchPeople(d, body) },
  '/filter-options': { method: 'GET', handler: (_d, q) => filterOptions(q) },
};

function checkRate(rate: number): number {
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw new RangeError(`fail rate must be from 0 to 1, got ${rate}`);
  return rate;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw SandboxHttpError.generic(413, 'request body is over 1 MiB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw SandboxHttpError.generic(400, 'request body is not valid JSON');
  }
}

export async function startPartnerSandbox(options: PartnerSandboxOptions = {}): Promise<PartnerSandbox> {
  const seed = options.seed ?? 1;
  const latencyMs = options.latencyMs ?? 0;
  const validKeys = new Set(options.keys ?? [SANDBOX_KEY]);
  const dataset = createDataset({ seed, companies: options.companies, people: options.people });
  const share = options.jobChangesShare;
  if (share !== undefined && !(share >= 0 && share <= 1))
    throw new RangeError(`job changes share must be from 0 to 1, got ${share}`);
  if (share !== undefined) moveJobs(dataset, { share, seed });
  const window = new RateWindow(options.rateLimitPerSecond ?? 50);
  const failures = new Prng(seed ^ 0x5eed);
  let failRate = checkRate(options.failRate ?? 0);
  let timeoutRate = checkRate(options.timeoutRate ?? 0);
  let bursts = options.bursts;
  let burstsFrom = Date.now();
  let unauthorized = 0;
  let injectedFailures = 0;
  let injectedTimeouts = 0;
  let injectedBursts = 0;
  let byEndpoint: Record<string, number> = {};
  const inBurst = () => bursts !== undefined && (Date.now() - burstsFrom) % bursts.everyMs < bursts.forMs;

  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const stats = (): SandboxStats => ({
    keys: window.stats(),
    unauthorized,
    injectedFailures,
    injectedTimeouts,
    injectedBursts,
    byEndpoint: { ...byEndpoint },
    loopDelayMs: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  });

  async function control(path: string, query: URLSearchParams, req: IncomingMessage): Promise<[number, unknown]> {
    if (path === '/__sandbox/stats' && req.method === 'GET') return [200, stats()];
    if (path === '/__sandbox/sample' && req.method === 'GET') return [200, sampleIdentifiers(dataset, query)];
    if (path === '/__sandbox/fail-rate' && req.method === 'POST') {
      const rate = Number(query.get('rate'));
      if (!query.has('rate') || !Number.isFinite(rate) || rate < 0 || rate > 1) {
        throw SandboxHttpError.generic(400, 'rate must be a number from 0 to 1');
      }
      failRate = rate;
      return [200, { failRate }];
    }
    if (path === '/__sandbox/job-changes' && req.method === 'POST')
      return [200, moveJobs(dataset, await readJson(req))];
    throw SandboxHttpError.generic(
      404,
      `no sandbox control ${req.method} ${path}; use GET /__sandbox/stats, ` +
        'GET /__sandbox/sample, POST /__sandbox/fail-rate or POST /__sandbox/job-changes',
    );
  }

  async function api(
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
  ): Promise<[number, unknown, Record<string, string>?]> {
    const route = ROUTES[path];
    if (!route)
      throw SandboxHttpError.generic(
        404,
        `no endpoint ${path}; the API has GET /company, GET /people, POST /people/search and GET /filter-options`,
      );
    if (req.method !== route.method) {
      throw SandboxHttpError.generic(405, `${path} takes ${route.method}, not ${req.method}`, { allow: route.method });
    }
    const key = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (key === SANDBOX_KEY_NO_ORG) {
      unauthorized++;
      throw SandboxHttpError.filter(
        403,
        'org_required',
        'this API key belongs to no organisation; create the key inside an organisation in the dashboard',
      );
    }
    if (key === undefined || !validKeys.has(key)) {
      unauthorized++;
      throw SandboxHttpError.generic(
        401,
        'missing or invalid API key; send the header Authorization: Bearer <API key>',
        { 'www-authenticate': 'Bearer' },
      );
    }
    if (inBurst()) {
      injectedBursts++;
      throw SandboxHttpError.generic(429, 'too many requests; wait Retry-After seconds', { 'retry-after': '1' });
    }
    const admission = window.admit(key);
    if (!admission.allowed) {
      throw SandboxHttpError.generic(
        429,
        'rate limit of 50 requests per second for this API key exceeded; wait Retry-After seconds',
        {
          'retry-after': String(admission.retryAfterSeconds),
        },
      );
    }
    const body = route.method === 'POST' ? await readJson(req) : undefined;
    if (failRate > 0 && failures.next() < failRate) {
      injectedFailures++;
      throw SandboxHttpError.generic(500, 'internal server error; retry the request');
    }
    if (timeoutRate > 0 && failures.next() < timeoutRate) {
      injectedTimeouts++;
      return [NO_ANSWER, undefined];
    }
    const endpoint = `${route.method} ${path}`;
    byEndpoint[endpoint] = (byEndpoint[endpoint] ?? 0) + 1;
    return [200, route.handler(dataset, query, body)];
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const isControl = path.startsWith('/__sandbox/');
    const answer = isControl ? control(path, url.searchParams, req) : api(req, path, url.searchParams);
    answer
      .catch((error: unknown): [number, unknown, Record<string, string>] => {
        if (error instanceof SandboxHttpError) return [error.status, error.body, error.headers];
        log.error({ err: error, path }, 'partner sandbox failed to answer');
        return [500, { error: 500, message: 'internal server error; retry the request' }, {}];
      })
      .then(async ([status, body, headers]) => {
        if (status === NO_ANSWER) return;
        if (!isControl && latencyMs > 0) await sleep(latencyMs);
        log.debug({ method: req.method, path, status }, 'partner sandbox request');
        send(res, status, body, headers);
      })
      .catch((error: unknown) => log.error({ err: error }, 'partner sandbox could not send an answer'));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    dataset,
    setFailRate(rate) {
      failRate = checkRate(rate);
    },
    setFaults(faults) {
      if (faults.failRate !== undefined) failRate = checkRate(faults.failRate);
      if (faults.timeoutRate !== undefined) timeoutRate = checkRate(faults.timeoutRate);
      if ('bursts' in faults) {
        // A burst starts now, whenever the sandbox started.
        bursts = faults.bursts;
        burstsFrom = Date.now();
      }
    },
    stats,
    resetStats() {
      window.reset();
      unauthorized = 0;
      injectedFailures = 0;
      injectedTimeouts = 0;
      injectedBursts = 0;
      byEndpoint = {};
      loopDelay.reset();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        loopDelay.disable();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
