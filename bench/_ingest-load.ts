/** The load generator of the ingest benchmark, run in its own process: unique signed deliveries of 10 events. */
import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';

const url = process.env.INGEST_URL!;
const secret = process.env.INGEST_SECRET!;
const seconds = Number(process.env.INGEST_SECONDS ?? 10);
const connections = Number(process.env.INGEST_CONNECTIONS ?? 32);
let next = 10_000_000;

function delivery() {
  const now = Date.now();
  const events = Array.from({ length: 10 }, () => {
    const objectId = next++;
    return { eventId: objectId, subscriptionId: 1, portalId: 62515, appId: 1, occurredAt: now, subscriptionType: 'contact.creation', attemptNumber: 0, objectId, changeSource: 'CRM', changeFlag: 'NEW' };
  });
  const body = JSON.stringify(events);
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', secret).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');
  return { body, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } };
}

const result = await autocannon({
  url,
  method: 'POST',
  connections,
  duration: seconds,
  requests: [{ setupRequest: (req) => ({ ...req, ...delivery() }) }],
});
process.send!({
  requests: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors,
  p50: result.latency.p50,
  p99: result.latency.p99,
  seconds: result.duration,
  cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
});
process.exit(0);
