/**
 * Salesforce connector figures against the local sandbox:
 * - outbound message parse time for a full message (100 notifications), and how fast each kind of
 *   refusal is (wrong secret, wrong org, malformed XML, entity declaration, oversize body);
 * - a write and a read of N records through jsforce: API calls used (Salesforce counts each request)
 *   and records per second.
 * Usage: npm run bench -- salesforce [--records 10000]
 */
import { createSalesforceConnector } from '../connectors/salesforce/connector.js';
import { outboundEnvelope } from '../connectors/salesforce/sandbox/outbound.js';
import { startSalesforceSandbox } from '../connectors/salesforce/sandbox/server.js';
import { createSalesforceWebhookHandler } from '../connectors/salesforce/webhook.js';
import type { WebhookRequest } from '../src/core/connector.js';

const recordsArg = process.argv.indexOf('--records');
const RECORDS = recordsArg > 0 ? Number(process.argv[recordsArg + 1]) : 10_000;

const ORG = '00D8d0000000001EAA';
const handler = createSalesforceWebhookHandler({ orgId: ORG, secret: 'bench-secret' });
const notifications = Array.from({ length: 100 }, (_, i) => ({
  id: `04l8d00000${String(i).padStart(5, '0')}AAA`,
  objectType: 'Lead',
  fields: {
    Id: '00Q1N00000bS2eOUAS',
    Email: `lead${i}@example.com`,
    Company: `Company ${i} & Co`,
    LastModifiedDate: '2024-05-01T12:00:00.000+0000',
  },
}));
const full = outboundEnvelope(
  { orgId: ORG, actionId: '04k8d0000000001AAA', instanceUrl: 'https://x.my.salesforce.com' },
  notifications,
);
const req = (body: string, secret = 'bench-secret'): WebhookRequest => ({
  method: 'POST',
  url: 'https://enrich.example.com/webhooks/salesforce/x',
  headers: { 'content-type': 'text/xml' },
  rawBody: Buffer.from(body),
  params: { secret },
});
const laughs =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
  ']><x>&lol9;</x>';
const cases: [string, WebhookRequest][] = [
  ['accept_100', req(full)],
  ['wrong_secret', req(full, 'guess')],
  ['wrong_org', req(full.replace(ORG, '00Dxx0000001gEREAY'))],
  ['malformed', req(full.slice(0, -30))],
  ['entities', req(laughs)],
  ['oversize', req(full + ' '.repeat(1024 * 1024))],
];

function timeMs(request: WebhookRequest, rounds: number): number {
  for (let i = 0; i < 20; i++) handler.parse(request);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) handler.parse(request);
  return Number(process.hrtime.bigint() - t0) / 1e6 / rounds;
}

const parseFigures: Record<string, string> = {};
for (const [name, request] of cases) {
  const ms = timeMs(request, 200);
  parseFigures[`parse_${name}_ms`] = ms.toFixed(3);
  console.log(
    `webhook ${name.padEnd(13)} ${ms.toFixed(3)} ms per request ` +
      `(${handler.parse(request).ok ? 'accepted' : 'refused'})`,
  );
}

const sandbox = await startSalesforceSandbox({ dailyLimit: 10_000_000 });
const ids: string[] = [];
for (let i = 0; i < RECORDS; i++)
  ids.push(sandbox.createRecord('Lead', { LastName: `Lead ${i}`, Company: `Company ${i}` }));
const connector = createSalesforceConnector({
  auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
  apiReserve: 0,
});

const before = sandbox.stats().apiCalls;
const callsOf = (prefix: string) =>
  Object.entries(sandbox.stats().byOperation)
    .filter(([op]) => op.startsWith(prefix))
    .reduce((n, [, calls]) => n + calls, 0);
// A person's writes go through sObject Collections, 200 a call; bulk work of 2,000 or more through one
// Bulk API 2.0 ingest job.
let t = performance.now();
const results = await connector.writeRecords(
  'Lead',
  ids.map((id, i) => ({ id, properties: { Title: `Title ${i}`, NumberOfEmployees: String(i) } })),
  { priority: 'interactive' },
);
const writeMs = performance.now() - t;
const writeCalls = callsOf('collections.update');
t = performance.now();
const ingested = await connector.writeRecords(
  'Lead',
  ids.map((id, i) => ({ id, properties: { Title: `Bulk title ${i}` } })),
  { priority: 'bulk' },
);
const ingestMs = performance.now() - t;
const ingestCalls = callsOf('ingest.');
t = performance.now();
const read = await connector.readRecords('Lead', ids, ['Title', 'NumberOfEmployees', 'Email', 'Company']);
const readMs = performance.now() - t;
const stats = sandbox.stats();
const queryCalls = (stats.byOperation.query ?? 0) + (stats.byOperation.queryMore ?? 0);
await connector.close();
await sandbox.close();

console.log(
  `write ${RECORDS} records: ${writeCalls} collections calls, ${results.filter((r) => r.ok).length} saved, ` +
    `${(RECORDS / (writeMs / 1000)).toFixed(0)} records/s`,
);
console.log(
  `bulk write ${RECORDS} records: ${ingestCalls} calls of one Bulk API 2.0 ingest job, ` +
    `${ingested.filter((r) => r.ok).length} saved, ${(RECORDS / (ingestMs / 1000)).toFixed(0)} records/s`,
);
console.log(
  `read ${RECORDS} records by id: ${queryCalls} query calls, ${read.length} read, ` +
    `${(RECORDS / (readMs / 1000)).toFixed(0)} records/s`,
);
console.log(`API calls used in all: ${stats.apiCalls - before} (one-per-record would be ${RECORDS * 3})`);
console.log(
  `BENCH salesforce records=${RECORDS} write_calls=${writeCalls} ingest_calls=${ingestCalls} ` +
    `read_calls=${queryCalls} ingest_rps=${(RECORDS / (ingestMs / 1000)).toFixed(0)} ` +
    `api_calls=${stats.apiCalls - before} ` +
    `write_rps=${(RECORDS / (writeMs / 1000)).toFixed(0)} read_rps=${(RECORDS / (readMs / 1000)).toFixed(0)} ` +
    Object.entries(parseFigures)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
);
