/**
 * The load generator of the ingest benchmark, run in its own process: unique signed deliveries of 10
 * events. The parent sends one `{ round }` message per round (a target's URL and how long to load it)
 * and gets that round's counts back; `{ report: true }` answers with each target's latency percentiles
 * over its measured rounds (not the warm-ups), from every response's own time, and ends the process.
 */
import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';

export interface Round {
  target: string;
  url: string;
  seconds: number;
  /** Whether the round's latencies count (not a warm-up). */
  measured: boolean;
}

export interface RoundResult {
  requests: number;
  non2xx: number;
  errors: number;
  /** The load generator's own CPU time during the round, in ms. */
  cpuMs: number;
}

export type Latencies = Record<string, { p50: number; p99: number }>;

const secret = process.env.INGEST_SECRET!;
const connections = Number(process.env.INGEST_CONNECTIONS ?? 10);
let next = 10_000_000;
const latencies = new Map<string, number[]>();

function delivery(url: string) {
  const now = Date.now();
  const events = Array.from({ length: 10 }, () => {
    const objectId = next++;
    return {
      eventId: objectId,
      subscriptionId: 1,
      portalId: 62515,
      appId: 1,
      occurredAt: now,
      subscriptionType: 'contact.creation',
      attemptNumber: 0,
      objectId,
      changeSource: 'CRM',
      changeFlag: 'NEW',
    };
  });
  const body = JSON.stringify(events);
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', secret).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-hubspot-signature-v3': signature,
      'x-hubspot-request-timestamp': timestamp,
    },
  };
}

async function run(round: Round): Promise<RoundResult> {
  // A warm-up's latencies go to a list of their own, thrown away, whatever rounds came before it.
  const times = round.measured ? (latencies.get(round.target) ?? []) : [];
  if (round.measured) latencies.set(round.target, times);
  const cpuBefore = process.cpuUsage();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: round.url,
        method: 'POST',
        connections,
        duration: round.seconds,
        requests: [{ setupRequest: (req) => ({ ...req, ...delivery(round.url) }) }],
      },
      (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

process.on('message', (message: { round?: Round; report?: boolean }) => {
  if (message.round) {
    void run(message.round).then((result) => process.send!(result));
    return;
  }
  const report: Latencies = {};
  for (const [target, times] of latencies) {
    const sorted = times.sort((a, b) => a - b);
    report[target] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }
  process.send!(report, () => process.exit(0));
});
