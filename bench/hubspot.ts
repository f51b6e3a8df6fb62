/**
 * HubSpot connector figures against the local sandbox:
 * - webhook parse time for a full delivery (100 signed events), which bounds how fast the route answers;
 * - a 1,000-record write and read through the official client: CRM calls used and records per second
 *   (the sandbox's limit is lifted so the figure is the connector's own cost, not HubSpot's budget).
 * Usage: npm run bench -- hubspot [--records 1000]
 */
import { createHubspotConnector } from '../connectors/hubspot/connector.js';
import { startHubspotSandbox } from '../connectors/hubspot/sandbox/server.js';
import { signV3 } from '../connectors/hubspot/signature.js';
import { createHubspotWebhookHandler } from '../connectors/hubspot/webhook.js';

const recordsArg = process.argv.indexOf('--records');
const RECORDS = recordsArg > 0 ? Number(process.argv[recordsArg + 1]) : 1000;

const secret = 'bench-secret';
const url = 'https://enrich.example.com/webhooks/hubspot';
const now = Date.now();
const body = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({
    eventId: i,
    subscriptionId: 1,
    portalId: 62515,
    appId: 1,
    occurredAt: now - i,
    attemptNumber: 0,
    objectId: 1000 + i,
    changeSource: 'CRM',
    ...(i % 2
      ? { subscriptionType: 'contact.creation' }
      : { subscriptionType: 'contact.propertyChange', propertyName: 'email', propertyValue: `p${i}@example.com` }),
  })),
);
const timestamp = String(now);
const request = {
  method: 'POST',
  url,
  rawBody: Buffer.from(body),
  headers: {
    'x-hubspot-signature-v3': signV3(secret, 'POST', url, body, timestamp),
    'x-hubspot-request-timestamp': timestamp,
  },
};
const handler = createHubspotWebhookHandler({ clientSecret: secret });
const ROUNDS = 2000;
for (let i = 0; i < 200; i++) handler.parse(request);
const t0 = process.hrtime.bigint();
for (let i = 0; i < ROUNDS; i++) {
  const result = handler.parse(request);
  if (!result.ok || result.events.length !== 100) throw new Error('bench delivery did not parse');
}
const parseMs = Number(process.hrtime.bigint() - t0) / 1e6 / ROUNDS;
console.log(`webhook parse, 100 events, ${body.length} bytes: ${parseMs.toFixed(3)} ms per delivery`);

const sandbox = await startHubspotSandbox({ rateLimit: 1_000_000 });
const hubspot = createHubspotConnector({
  connection: 'bench',
  accessToken: 'sandbox-token',
  basePath: sandbox.url,
  rateLimit: { max: 100_000, windowMs: 10_000 },
});
const ids = Array.from({ length: RECORDS }, (_, i) => sandbox.createContact({ email: `bench${i}@example.com` }).id);
const w0 = performance.now();
const written = await hubspot.writeRecords(
  'contact',
  ids.map((id, i) => ({ id, properties: { jobtitle: `Role ${i}`, city: 'Lyon' } })),
);
const writeMs = performance.now() - w0;
const r0 = performance.now();
const read = await hubspot.readRecords('contact', ids, ['email', 'jobtitle', 'city']);
const readMs = performance.now() - r0;
const stats = hubspot.stats();
await hubspot.close();
await sandbox.close();
if (written.some((r) => !r.ok) || read.length !== RECORDS) throw new Error('bench writes or reads failed');
const writeRate = Math.round(RECORDS / (writeMs / 1000));
const readRate = Math.round(RECORDS / (readMs / 1000));
console.log(
  `write ${RECORDS} records: ${stats.byOperation.batch_update} calls, ` +
    `${writeMs.toFixed(0)} ms (${writeRate} records/s)`,
);
console.log(
  `read ${RECORDS} records: ${stats.byOperation.batch_read} calls, ${readMs.toFixed(0)} ms (${readRate} records/s)`,
);
console.log(
  `BENCH hubspot parse_ms=${parseMs.toFixed(3)} write_calls=${stats.byOperation.batch_update} ` +
    `read_calls=${stats.byOperation.batch_read} write_records_per_s=${writeRate} read_records_per_s=${readRate}`,
);
