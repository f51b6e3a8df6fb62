/**
 * `npm run bench -- slow-bodies [--senders 1000] [--deadline 10] [--budget 16] [--unsigned]`
 *
 * The attack of issue 31 at full strength against the compiled service as its own process: `--senders`
 * connections each declare a 1 MB webhook body and send it at 160 KB/s, with signature headers that look
 * right (the head cannot refuse them; `--unsigned` sends none, as the original report did). Correctly
 * signed deliveries go on meanwhile. Prints the service's resident memory before, at its peak and after,
 * how the senders were answered, and whether every valid delivery was stored.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { signV3 } from '../connectors/hubspot/signature.js';
import { killAll, processSchema, serviceEnv, startServiceProcess } from '../test/e2e/process.js';
import { slowSend } from '../test/e2e/slow-sender.js';
import { HUBSPOT_SECRET, startSandboxes } from '../test/e2e/stack.js';
import { SERVER_URL } from '../test/support/db.js';

const { values: args } = parseArgs({
  options: {
    senders: { type: 'string', default: '1000' },
    deadline: { type: 'string', default: '10' },
    budget: { type: 'string', default: '16' },
    unsigned: { type: 'boolean', default: false },
  },
});
const SENDERS = Number(args.senders);
const DECLARED = 1_048_000;
const MB = 1024 * 1024;

const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const sandboxes = await startSandboxes({ people: 200, companies: 50 });
const schema = processSchema();
try {
  const service = await startServiceProcess(
    serviceEnv(sandboxes, schema, {
      WEBHOOK_BODY_TIMEOUT_SECONDS: args.deadline,
      WEBHOOK_BODY_BUDGET_MB: args.budget,
      LOG_LEVEL: 'error',
    }),
  );
  let eventId = 1;
  const deliver = async () => {
    const url = `${service.url}/webhooks/hubspot`;
    const body = JSON.stringify([
      {
        eventId: eventId++,
        portalId: sandboxes.hubspot.portalId,
        occurredAt: Date.now(),
        subscriptionType: 'contact.creation',
        objectId: 50_000 + eventId,
      },
    ]);
    const timestamp = String(Date.now());
    const headers = {
      'content-type': 'application/json',
      'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': signV3(HUBSPOT_SECRET, 'POST', url, body, timestamp),
    };
    const res = await fetch(url, { method: 'POST', body, headers });
    await res.text();
    return res.status;
  };
  for (let i = 0; i < 5; i++) await deliver();
  const baseline = rss(service.pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(service.pid))), 50);
  const started = Date.now();
  const signature: Record<string, string> = args.unsigned
    ? {}
    : { 'x-hubspot-request-timestamp': String(Date.now()), 'x-hubspot-signature-v3': 'bm90IGEgc2lnbmF0dXJl' };
  let done = false;
  const attack = Promise.all(
    Array.from({ length: SENDERS }, () =>
      slowSend(service.url, '/webhooks/hubspot', {
        headers: { 'content-type': 'application/json', 'content-length': String(DECLARED), ...signature },
        bodyBytes: DECLARED,
        chunkBytes: 16 * 1024,
        intervalMs: 100,
      }),
    ),
  ).finally(() => (done = true));
  const valid: number[] = [];
  while (!done) {
    valid.push(await deliver());
    await new Promise((r) => setTimeout(r, 100));
  }
  const answers = await attack;
  clearInterval(sampler);
  const seconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 5_000));
  const after = rss(service.pid);

  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".received_event`);
  await client.end();

  const tally: Record<string, number> = {};
  for (const a of answers) tally[String(a.status ?? 'reset')] = (tally[String(a.status ?? 'reset')] ?? 0) + 1;
  console.log(
    `${SENDERS} slow 1 MB senders (${args.unsigned ? 'unsigned' : 'plausible signature headers'}), ` +
      `deadline ${args.deadline} s, budget ${args.budget} MB: ` +
      `all ended in ${seconds.toFixed(1)} s; answers ${JSON.stringify(tally)}`,
  );
  console.log(
    `resident memory: ${(baseline / MB).toFixed(0)} MB before, ${(peak / MB).toFixed(0)} MB at peak, ` +
      `${(after / MB).toFixed(0)} MB 5 s after`,
  );
  console.log(
    `valid deliveries meanwhile: ${valid.length}, ${valid.filter((s) => s === 200).length} answered 200; ` +
      `${rows[0]!.n} events stored in all (5 before)`,
  );
  console.log(
    `BENCH slow-bodies senders=${SENDERS} rss_growth_mb=${((peak - baseline) / MB).toFixed(1)} ` +
      `rss_after_mb=${((after - baseline) / MB).toFixed(1)} ` +
      `valid=${valid.length} valid_ok=${valid.filter((s) => s === 200).length}`,
  );
} finally {
  await killAll([schema]);
  await sandboxes.close();
}
