/**
 * `npm run bench -- chaos [--records 1500] [--instances 3] [--kills 2] [--redis-url redis://127.0.0.1:6379]
 *   [--timeout-s 900] [--postgres restart|proxy]`
 *
 * Three `crm-enrich serve` processes behind a balancer on one Postgres schema and one Redis enrich
 * `records` HubSpot contacts created by an import, while the partner sandbox answers 30% of requests
 * with 500, leaves 5% unanswered (the client's timeout, 1.5 s here, ends them) and refuses everything
 * with 429 for one second in every ten; HubSpot answers 5% of calls with 429 and 5% with 502; one
 * instance is SIGKILLed and started again `kills` times; and the Postgres server itself is restarted
 * half-way (pg_ctlcluster; run this only where that server is yours to restart). Then the faults stop
 * and the dead letters are replayed. `--postgres proxy` cuts the database off through a TCP proxy for 5 s
 * instead (every connection reset, none accepted), for a machine whose server others are using. Prints:
 * `BENCH chaos events=N enriched=N duplicates=N lost=N dead_letters=N ...`: events are the contacts
 * created; enriched those with their enriched properties in HubSpot at the end; duplicates a value
 * written twice to one record; lost the contacts not enriched at the end; dead_letters the jobs
 * parked under the faults (each replayed afterwards); credits counted by the service against those
 * the partner answered.
 */
import { parseArgs } from 'node:util';
import { restartPostgresServer, runChaos } from '../test/e2e/chaos-run.js';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1500' },
    instances: { type: 'string', default: '3' },
    kills: { type: 'string', default: '2' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'timeout-s': { type: 'string', default: '900' },
    postgres: { type: 'string', default: 'restart' },
  },
});

if (args.postgres !== 'restart' && args.postgres !== 'proxy') throw new Error('--postgres expects restart or proxy');

const result = await runChaos({
  records: Number(args.records),
  instances: Number(args.instances),
  kills: Number(args.kills),
  redisUrl: args['redis-url'],
  timeoutMs: Number(args['timeout-s']) * 1000,
  takeDatabaseAway: async (proxy) => {
    if (args.postgres === 'restart') return restartPostgresServer();
    proxy.down();
    await new Promise((r) => setTimeout(r, 5_000));
    proxy.up();
  },
  log: (line) => console.log(line),
});

console.log(`faults injected: ${JSON.stringify(result.injected)}`);
console.log(
  `BENCH chaos events=${result.events} enriched=${result.enriched} duplicates=${result.duplicates} ` +
    `lost=${result.lost} dead_letters=${result.deadLetters} seconds=${result.seconds.toFixed(1)} ` +
    `credits_counted=${result.creditsCounted} credits_served=${result.creditsServed}`,
);
process.exit(0);
