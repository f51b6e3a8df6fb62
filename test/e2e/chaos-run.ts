/**
 * A run under faults, shared by the chaos test and `npm run bench -- chaos`: several service processes
 * behind a balancer on one Postgres schema and one Redis, a partner that answers 500 to some requests,
 * leaves some unanswered and refuses everything with 429 in bursts, a HubSpot that answers 429 and 502
 * to some calls; during the run one instance is SIGKILLed and started again (`kills` times) and the
 * database goes away once (`takeDatabaseAway`). Afterwards the faults stop, the dead letters are
 * replayed, and the run counts what it cares about: every contact enriched, no value written twice.
 */
import pg from 'pg';
import { SERVER_URL } from '../support/db.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startBalancer } from './balancer.js';
import { dropSchema, duplicateWrites, partnerServed } from './probes.js';
import { killAll, processSchema, serviceEnv, startServiceProcess, type ServiceProcess } from './process.js';
import { partnerPeople, startSandboxes } from './stack.js';

export interface ChaosOptions {
  records: number;
  instances: number;
  /** SIGKILLs of one instance during the run, each followed by a restart. */
  kills: number;
  redisUrl: string;
  /** Takes the database away and brings it back; called once, half-way. */
  takeDatabaseAway(proxy: TcpProxy): Promise<void>;
  timeoutMs: number;
  /** Shares of HubSpot calls refused with 429 and 502; 5% each by default. */
  hubspotFaults?: { rate429: number; rate5xx: number };
  log?: (line: string) => void;
}

export interface ChaosResult {
  events: number;
  /** Contacts whose enriched properties are in HubSpot once the faults are over. */
  enriched: number;
  /** A property written twice with one value to one record (a change written twice). */
  duplicates: number;
  /** Contacts neither enriched nor parked as a dead letter before the replay, nor enriched after it. */
  lost: number;
  /** Jobs parked as dead letters under the faults (replayed afterwards). */
  deadLetters: number;
  seconds: number;
  creditsCounted: number;
  /** Requests the partner took on (the injected 500s and timeouts included; its 429s not). */
  creditsServed: number;
  injected: { partner500: number; partnerTimeouts: number; partner429: number; hubspot429: number; hubspot5xx: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const began = performance.now();
  const log = (line: string) => options.log?.(`[${((performance.now() - began) / 1000).toFixed(1)} s] ${line}`);
  // Partner answers take 150 ms, as over the internet, so the work is still under way when the faults come.
  const sandboxes = await startSandboxes({
    partnerLatencyMs: 150,
    people: Math.max(2_000, options.records * 2),
    companies: Math.max(200, Math.ceil(options.records / 5)),
  });
  const schema = processSchema();
  const target = new URL(SERVER_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(SERVER_URL);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  // The CRMs call the balancer: that is the public URL every instance checks signatures against.
  const balancer = await startBalancer([]);
  const env = () => ({
    ...serviceEnv(sandboxes, schema, {
      LOG_LEVEL: 'warn',
      REDIS_URL: options.redisUrl,
      PARTNER_TIMEOUT_MS: '1500',
      CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: '1',
      PUBLIC_URL: balancer.url,
    }),
    DATABASE_URL: viaProxy.toString(),
  });
  const services: ServiceProcess[] = [];
  // An instance that exits when nobody killed it is a failure of its own, reported with what it printed.
  const killed = new Set<ServiceProcess>();
  const unexpectedExits: string[] = [];
  const start = async () => {
    const service = await startServiceProcess(env(), 60_000);
    void service.exited.then((exit) => {
      if (!killed.has(service))
        unexpectedExits.push(
          `an instance exited by itself (${JSON.stringify(exit)}):\n${service.output().slice(-4_000)}`,
        );
    });
    return service;
  };
  const stop = (service: ServiceProcess, signal: NodeJS.Signals) => {
    killed.add(service);
    service.kill(signal);
  };
  try {
    for (let i = 0; i < options.instances; i++) services.push(await start());
    log(`${options.instances} instances ready`);
    balancer.setTargets(services.map((s) => s.url));
    sandboxes.hubspot.setWebhookUrl(`${balancer.url}/webhooks/hubspot`);
    sandboxes.hubspot.recordWrites();
    sandboxes.partner.setFaults({ failRate: 0.3, timeoutRate: 0.05, bursts: { everyMs: 10_000, forMs: 1_000 } });
    sandboxes.hubspot.setFaults(options.hubspotFaults ?? { rate429: 0.05, rate5xx: 0.05 });

    const started = performance.now();
    const ids: string[] = [];
    for (const [i, person] of partnerPeople(sandboxes, options.records).entries()) {
      ids.push(sandboxes.hubspot.createContact({ email: person.workEmail! }, 'IMPORT').id);
      if (i % 100 === 99) await sleep(200);
    }
    log(`created ${ids.length} contacts`);
    const enrichedCount = () => ids.filter((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at).length;

    // The faults, each when part of the work is done.
    const victim = options.instances > 1 ? 1 : 0;
    const steps: { at: number; run: () => Promise<void> }[] = [];
    for (let k = 0; k < options.kills; k++) {
      steps.push({
        at: (k + 1) / (options.kills + 2),
        run: async () => {
          log(`SIGKILL instance ${victim} at ${enrichedCount()} enriched, ${partnerRequests()} partner requests`);
          stop(services[victim]!, 'SIGKILL');
          await services[victim]!.exited;
          await sleep(1_000);
          services[victim] = await start();
          balancer.setTargets(services.map((s) => s.url));
        },
      });
    }
    steps.push({
      at: 0.5,
      run: async () => {
        log(`database away at ${enrichedCount()} enriched, ${partnerRequests()} partner requests`);
        await options.takeDatabaseAway(proxy);
        log('database back');
      },
    });
    steps.sort((a, b) => a.at - b.at);

    const deadline = Date.now() + options.timeoutMs;
    const deadLetterIds = async () => {
      const res = await services[0]!.admin<{ deadLetters: { id: string; data: { recordId: string } }[] }>(
        'GET',
        '/dead-letters?limit=1000',
      );
      return res.status === 200 ? res.body.deadLetters : undefined;
    };
    let parked: { id: string; data: { recordId: string } }[] = [];
    // The faults go in while the work is under way: progress is watched closely until they are all done.
    // Progress is counted in partner requests, not written records: writes go out a batch at a time.
    const partnerRequests = () => partnerServed(sandboxes);
    while (steps.length && Date.now() < deadline) {
      if (partnerRequests() >= steps[0]!.at * ids.length) await steps.shift()!.run();
      else await sleep(50);
    }
    for (;;) {
      const letters = await deadLetterIds().catch(() => undefined);
      if (letters) parked = letters;
      const parkedRecords = new Set(parked.map((l) => l.data.recordId));
      const open = ids.filter(
        (id) => !sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at && !parkedRecords.has(id),
      ).length;
      if (open === 0) break;
      if (Date.now() > deadline) {
        log(`gave up waiting: ${open} contacts neither enriched nor parked`);
        break;
      }
      await sleep(500);
    }
    const seconds = (performance.now() - started) / 1000;
    log(`settled: ${enrichedCount()} enriched, ${parked.length} parked`);
    const deadLetters = parked.length;

    // The faults are over: what was parked is replayed, and must then be enriched too.
    sandboxes.partner.setFaults({ failRate: 0, timeoutRate: 0, bursts: undefined });
    sandboxes.hubspot.setFaults({});
    if (deadLetters > 0) {
      const replay = await services[0]!.admin('POST', '/dead-letters/replay', {});
      log(`replayed ${deadLetters} dead letters: ${replay.status}`);
    }
    const replayDeadline = Date.now() + 60_000;
    while (enrichedCount() < ids.length && Date.now() < replayDeadline) await sleep(500);

    if (unexpectedExits.length) throw new Error(unexpectedExits.join('\n\n'));
    const enriched = enrichedCount();
    const duplicates = duplicateWrites(sandboxes.hubspot.writes(), 'contacts');
    const stats = await services[0]!.admin<{ today: { partnerLookups: number } }>('GET', '/stats');
    const partner = sandboxes.partner.stats();
    const hubspot = sandboxes.hubspot.stats();
    const result: ChaosResult = {
      events: ids.length,
      enriched,
      duplicates,
      lost: ids.length - enriched,
      deadLetters,
      seconds,
      creditsCounted: stats.body.today?.partnerLookups ?? -1,
      creditsServed: partnerServed(sandboxes),
      injected: {
        partner500: partner.injectedFailures,
        partnerTimeouts: partner.injectedTimeouts,
        partner429: partner.injectedBursts,
        hubspot429: hubspot.injected['429'],
        hubspot5xx: hubspot.injected['5xx'],
      },
    };
    for (const s of services) stop(s, 'SIGTERM');
    await Promise.all(services.map((s) => s.exited));
    log('stopped');
    return result;
  } finally {
    await balancer.close();
    await killAll();
    await sandboxes.close();
    proxy.up();
    await proxy.close();
    await dropSchema(schema);
  }
}

/** Restarts the local Postgres server itself (the bench; never in the test suite, which shares it). */
export async function restartPostgresServer(): Promise<void> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { readdirSync } = await import('node:fs');
  const version = readdirSync('/etc/postgresql')[0]!;
  // Not execFileSync: the sandboxes share this process, and a partner frozen for the restart's two
  // seconds let requests time out unserved that the service had to count as spent.
  await promisify(execFile)('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
  // Wait until it answers again.
  for (let i = 0; i < 100; i++) {
    const client = new pg.Client({ connectionString: SERVER_URL });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error('Postgres did not come back after the restart');
}
