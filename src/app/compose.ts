/**
 * The composition root: every part of the service built from the configuration, once, as plain
 * objects with named options. The store, the partner client under the key's shared limiter, the CRM
 * connectors, the active mappings (checked against each CRM's schema), the partner lookups, one
 * enrichment lane per mapped CRM object, backfills and discovery, and what the admin API and the
 * schedules ask of them. `Service` only starts and stops them; `startService` (start-service.ts) joins the two.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config.js';
import type { CrmConnector, CrmProperty } from '../core/connector.js';
import { Discovery } from '../discovery/discovery.js';
import { runScheduledDiscovery } from '../discovery/schedule.js';
import { enrichNow } from '../enrich/on-demand/enrich-now.js';
import { Enricher } from '../enrich/enricher.js';
import { wakingEnqueue, type WakeLane } from '../enrich/waking-enqueue.js';
import { FreeMailDomains } from '../enrich/employers/free-mail.js';
import { Intake } from '../enrich/intake/intake.js';
import { FeedReader } from '../enrich/intake/feed-reader.js';
import { FOREIGN_TOKEN_COUNTER } from '../enrich/lane/lane-events.js';
import { jobChangeActionsFor } from '../enrich/job-changes/actions.js';
import { JobChangeObserver } from '../enrich/job-changes/observer.js';
import { runScheduledSweeps } from '../enrich/job-changes/scheduled-sweep.js';
import { loadJobChangeActions } from '../mapping/job-change-actions.js';
import { PartnerLookups } from '../enrich/partner-lookups.js';
import { runRefreshTick } from '../enrich/listing/refresh.js';
import { createRateLimiter } from '../limits/create-rate-limiter.js';
import { limiterIdFor } from '../limits/limiter-id.js';
import { logger } from '../logger.js';
import {
  loadMappingDir,
  MappingError,
  missingCustomProperties,
  schemaKey,
  type LoadedMapping,
} from '../mapping/index.js';
import { PartnerClient } from '../partner/client.js';
import { partnerCatchUpSlots } from '../partner/create-partner-client.js';
import { parseLookupParams } from '../partner/lookup-params.js';
import { Metrics } from '../server/metrics.js';
import { onDemandDeps } from '../server/entry-point-context.js';
import { jobChangeSweepFor } from '../server/job-change-routes.js';
import { WorkflowCallbackSender } from '../enrich/on-demand/workflow-callback-sender.js';
import type { Parts } from '../service/parts.js';
import { Backfills } from '../enrich/listing/backfills.js';
import { FILE_UPLOAD_MAX_BYTES, FileJobs } from '../enrich/listing/file/file-jobs.js';
import { dataHealth } from './data-health.js';
import { cachedAnswers } from './cached-answers.js';
import { connectorsFromConfig } from './connectors.js';
import { entryPointsFromConfig } from './entry-points.js';
import { connectorFor, objectTypeIn } from '../core/connector-lookup.js';
import { MappingRegistry } from '../mapping/registry.js';
import { storePorts } from './store-ports.js';
import { EmbeddedVacuum } from '../store/embedded-vacuum.js';
import { pruneExpired } from '../store/housekeeping.js';
import { defaultCacheTtls } from '../store/lookup-cache.js';
import type { QueueSettings } from '../store/queue.js';
import { openStore, type StoreOptions } from '../store/store.js';
import { SERIES, StatsRecorder } from '../store/stats-recorder.js';
import { bindAccounts } from './bind-accounts.js';

const log = logger('service');

export interface ComposeOptions {
  config: Config;
  /** Where the mapping files are; `mappings/` by default. */
  mappingsDir?: string;
  /** Store settings tests shorten (claim expiry, retry delays). */
  store?: Partial<StoreOptions>;
  /** Lane tuning, for tests. */
  lanes?: {
    pollMs?: number;
    maxWriteWaitMs?: number;
    companyLingerMs?: number;
    heartbeatMs?: number;
    maxInFlight?: number;
  };
  /** Built by the caller (tests, embedded default) rather than from the configuration. */
  connectors?: CrmConnector[];
  /** How often the admin page's chart counts are written (10 s by default). */
  statsFlushMs?: number;
}

/**
 * Opens everything and checks the mappings against each CRM; throws
 * (naming every problem) on invalid mappings, closing what it opened.
 */
export async function compose(options: ComposeOptions): Promise<Parts> {
  const { config } = options;
  if (!config.PARTNER_API_KEY || !config.PARTNER_BASE_URL) {
    throw new Error(
      'PARTNER_API_KEY and PARTNER_BASE_URL must both be set (the embedded default sets them to the sandbox)',
    );
  }
  const loaded = await loadMappingDir(options.mappingsDir ?? 'mappings');
  if (loaded.problems.length) throw new MappingError(loaded.problems);
  const jobChangeActions = await loadJobChangeActions(options.mappingsDir ?? 'mappings');
  if (jobChangeActions.problems.length) throw new MappingError(jobChangeActions.problems);

  const store = await openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.CRM_ENRICH_DATA_DIR,
    schema: config.CRM_ENRICH_DB_SCHEMA,
    // A refresh must reach the partner, so no cached answer outlives the refresh interval.
    cacheTtls: {
      hitSeconds: Math.min(defaultCacheTtls.hitSeconds, config.REFRESH_AFTER_DAYS * 86_400),
      missSeconds: Math.min(defaultCacheTtls.missSeconds, config.REFRESH_AFTER_DAYS * 86_400),
    },
    ...options.store,
    queue: { ...queueSettingsFrom(config), ...options.store?.queue },
  });
  const closers: (() => Promise<void>)[] = [() => store.close()];
  try {
    const metrics = new Metrics();
    if (store.backend === 'pglite') {
      // The embedded database has no autovacuum of its own (embedded-vacuum.ts).
      const vacuum = new EmbeddedVacuum(store.db, store.schema, {
        onError: (error) =>
          log.warn({ err: error }, 'vacuuming the embedded database failed; the next pass tries again'),
      });
      vacuum.start();
      closers.push(() => vacuum.stop());
    }
    // Jobs stored by any producer wake their lane (the enricher is built below, before any job is stored).
    let wakeLane: WakeLane | undefined;
    const stored = storePorts(store);
    const ports = {
      ...stored,
      enqueue: wakingEnqueue(stored.enqueue, (connection, objectType, priority) =>
        wakeLane?.(connection, objectType, priority),
      ),
    };
    const limiter = createRateLimiter({
      id: limiterIdFor('partner', config.PARTNER_API_KEY),
      max: config.PARTNER_RATE_LIMIT,
      windowMs: 1_000,
      redisUrl: config.REDIS_URL,
      catchUpSlots: partnerCatchUpSlots(config.REDIS_URL),
    });
    closers.push(() => limiter.stop());
    const partner = new PartnerClient({
      baseUrl: config.PARTNER_BASE_URL,
      apiKey: config.PARTNER_API_KEY,
      limiter,
      timeoutMs: config.PARTNER_TIMEOUT_MS,
      maxRetries: config.PARTNER_MAX_RETRIES,
      paramNames: parseLookupParams(config.PARTNER_LOOKUP_PARAMS),
    });
    partner.on('request', (e) => metrics.partnerCalls.inc({ status: e.status === 0 ? 'error' : String(e.status) }));

    const connectors = options.connectors ?? connectorsFromConfig(config, loaded.mappings);
    closers.push(async () => {
      await Promise.all(connectors.map((c) => c.close()));
    });
    const stats = new StatsRecorder({
      write: (points) => store.series.add(points),
      backlog: () => store.queue.backlog(),
      crmCalls: () => Object.fromEntries(connectors.map((c) => [c.connection, c.stats().calls])),
      flushMs: options.statsFlushMs,
    });
    partner.on('request', () => stats.count(SERIES.partnerRequests));
    await Promise.all(connectors.map(async (c) => c.prepare?.()));
    await bindAccounts(store.accounts, connectors);
    const schemas = await readSchemas(connectors, loaded.mappings);
    const mappings = new MappingRegistry(store.mappings, schemas);
    await mappings.load(loaded.mappings.filter((m) => connectors.some((c) => c.crm === m.document.crm)));
    for (const entry of mappings.list()) {
      const { crm, objectType } = entry.version;
      const missing = missingCustomProperties(entry.compiled.document, schemas.get(schemaKey(crm, objectType)) ?? []);
      if (missing.length === 0) continue;
      // Writing to properties the CRM lacks would fail every record: the mapping waits until they exist.
      mappings.disable(
        crm,
        objectType,
        `needs custom properties the CRM lacks: ${missing.map((p) => p.name).join(', ')}`,
      );
      log.error(
        { crm, objectType, missing: missing.map((p) => p.name) },
        `the ${crm} ${objectType} mapping is not started: its custom properties do not exist yet. Run ` +
          `\`crm-enrich mappings provision\` (it creates them where the CRM allows, and prints what an admin ` +
          'must add where it does not), or remove them from the mapping',
      );
    }

    const lookups = new PartnerLookups({
      client: partner,
      cache: ports.cache,
      counters: ports.counters,
      dailyBudget: config.PARTNER_DAILY_LOOKUP_BUDGET,
      hardCap: Math.max(config.PARTNER_DAILY_LOOKUP_HARD_CAP, config.PARTNER_DAILY_LOOKUP_BUDGET),
    });
    lookups.on('lookup', (e) => {
      metrics.cacheLookups.inc({ result: e.fromCache ? 'hit' : 'miss' });
      stats.count(e.fromCache ? SERIES.cacheHits : SERIES.cacheMisses);
    });
    let budgetLogged = 0;
    lookups.on('budget', (e) => {
      // Every paused job meets the budget again; once every ten minutes is enough to say so.
      if (Date.now() - budgetLogged < 600_000) return;
      budgetLogged = Date.now();
      log.warn(
        e,
        e.priority === 'bulk'
          ? "today's partner lookup budget is spent; bulk work waits until tomorrow (UTC)"
          : "today's partner lookup hard cap is reached; new records wait too",
      );
    });

    const freeMail = new FreeMailDomains(config.CRM_ENRICH_FREE_EMAIL_DOMAINS);
    const createsCompanies = (c: CrmConnector) =>
      c.crm === 'hubspot' ? config.HUBSPOT_CREATE_COMPANIES : config.SALESFORCE_CREATE_ACCOUNTS;
    const jobChanges = new JobChangeObserver({
      store: store.jobChanges,
      actions: jobChangeActionsFor(connectors, jobChangeActions.document),
    });
    jobChanges.on('detected', (change) => metrics.jobChanges.inc({ connection: change.connection, kind: change.kind }));
    const enricher = new Enricher({
      connectors,
      mapping: (crm, objectType) => mappings.get(crm, objectType),
      queue: ports.queue,
      enqueue: ports.enqueue,
      state: ports.state,
      audit: ports.audit,
      erasure: ports.erasure,
      lookups,
      claims: store.companies,
      created: ports.created,
      writing: ports.writing,
      freeMail,
      jobChanges,
      createCompanies: createsCompanies,
      refreshAfterDays: config.REFRESH_AFTER_DAYS,
      heartbeatMs: config.CRM_ENRICH_HEARTBEAT_SECONDS * 1000,
      ...(config.CRM_ENRICH_LANE_MAX_IN_FLIGHT > 0 ? { maxInFlight: config.CRM_ENRICH_LANE_MAX_IN_FLIGHT } : {}),
      ...options.lanes,
    });
    enricher.on('job', (e) => {
      metrics.jobs.inc({ outcome: e.outcome }, e.count);
      stats.count(SERIES.job(e.outcome), e.count);
    });
    enricher.on('written', (e) => {
      const now = Date.now();
      for (const at of e.receivedAt) metrics.webhookToWrite.observe((now - Date.parse(at)) / 1000);
    });
    wakeLane = (connection, objectType, priority) => enricher.wake(connection, objectType, priority);
    enricher.on('error', (error) => log.error({ err: error }, 'an enrichment lane met an error; its jobs are retried'));
    enricher.on('foreignToken', (e) => {
      metrics.foreignTokenChanges.inc({ crm: e.crm }, e.count);
      void ports.counters.increment(FOREIGN_TOKEN_COUNTER, e.count).catch((error: unknown) => {
        log.warn(
          { err: error },
          'could not count changes made with the service token; the changes are enriched all the same',
        );
      });
    });
    const intake = new Intake({
      mapping: (crm, objectType) => mappings.get(crm, objectType),
      state: ports.state,
      created: ports.created,
      writing: ports.writing,
      enqueue: ports.enqueue,
    });
    const feeds = connectors.flatMap((c) =>
      c.eventFeed
        ? [
            new FeedReader({
              connection: c.connection,
              feed: c.eventFeed,
              positions: store.feeds,
              receive: (events) => intake.receive(events),
            }),
          ]
        : [],
    );
    const room = async (queue: string) => {
      // Two batches waiting keep the lane busy; listing further ahead would only age the snapshots.
      while ((await store.queue.depth(queue)) >= 200) await new Promise((r) => setTimeout(r, 250));
    };
    const backfills = new Backfills(
      {
        kv: ports.kv,
        queue: ports.enqueue,
        stale: ports.stale,
        states: (connection, objectType, ids) => ports.state.getMany(connection, objectType, ids),
        cached: cachedAnswers(store.cache),
        refreshAfterDays: config.REFRESH_AFTER_DAYS,
        room,
        lookups,
      },
      connectors,
      (crm, o) => mappings.get(crm, o),
      store,
      { freeMail, creates: createsCompanies },
    );
    const health = dataHealth({
      store,
      state: ports.state,
      freeMail,
      refreshAfterDays: config.REFRESH_AFTER_DAYS,
      connectors,
      mapping: (crm, o) => mappings.get(crm, o),
    });

    const files = new FileJobs({
      dataDir: config.CRM_ENRICH_DATA_DIR,
      connectors,
      mapping: (crm, o) => mappings.get(crm, o),
      lookups,
      maxBytes: FILE_UPLOAD_MAX_BYTES,
    });

    const discovery = new Discovery({
      connectors,
      mappings,
      partner: {
        searchPeople: (request, o) => partner.searchPeople(request, o),
        filterOptions: (query, o) => partner.filterOptions(query, o),
      },
      lookups,
      cache: ports.cache,
      counters: ports.counters,
      reservations: store.reservations,
      store: store.discovery,
      state: ports.state,
      created: ports.created,
      runMax: config.DISCOVERY_RUN_LIMIT,
      defaultLimit: Math.min(10, config.DISCOVERY_RUN_LIMIT),
      dailyMax: config.DISCOVERY_DAILY_LIMIT,
      dailyBudget: config.PARTNER_DAILY_LOOKUP_BUDGET,
      refreshAfterDays: config.REFRESH_AFTER_DAYS,
      holder: `${hostname()}:${process.pid}:${randomUUID()}`,
    });

    const entryPoints = entryPointsFromConfig(config, connectors);
    const callbacks = new WorkflowCallbackSender({
      callbacks: store.workflowCallbacks,
      deps: onDemandDeps({ store, ports, connectors, mappings }),
      connectors,
      entryPoints,
    });

    const parts: Parts = {
      config,
      store,
      ports,
      limiter,
      partner,
      lookups,
      connectors,
      mappings,
      enricher,
      intake,
      feeds,
      backfills,
      files,
      health,
      discovery,
      metrics,
      stats,
      callbacks,
      entryPoints,
      enrichNow: (connection, objectType, recordId) =>
        enrichNow({ enqueue: ports.enqueue }, connection, objectType, recordId),
      refreshNow: () =>
        runRefreshTick({
          connectors,
          mapping: (crm, o) => mappings.get(crm, o),
          stale: ports.stale,
          queue: ports.enqueue,
          kv: ports.kv,
        }),
      discoverScheduledNow: () =>
        runScheduledDiscovery(discovery, connectors, mappings, config.DISCOVERY_SCHEDULED_LIMIT),
      housekeeping: () => pruneExpired(store),
      sweepJobChangesNow: (now) =>
        runScheduledSweeps(
          jobChangeSweepFor(parts),
          jobChangeActions.document?.sweep ?? {},
          connectors.map((c) => c.connection),
          now,
        ),
    };
    return parts;
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}

/** Expired claims are looked for several times per expiry, so a dead worker's jobs return soon after it. */
function queueSettingsFrom(config: Config): Partial<QueueSettings> {
  const expire = config.CRM_ENRICH_JOB_EXPIRE_SECONDS;
  return {
    expireInSeconds: expire,
    superviseIntervalSeconds: Math.min(30, Math.max(1, Math.floor(expire / 4))),
    retryDelaySeconds: config.CRM_ENRICH_JOB_RETRY_DELAY_SECONDS,
    maxAttempts: config.CRM_ENRICH_JOB_ATTEMPTS,
  };
}

/** Each configured CRM's schema for the objects it has mappings for; refuses start-up when one cannot be read. */
async function readSchemas(connectors: CrmConnector[], mappings: LoadedMapping[]): Promise<Map<string, CrmProperty[]>> {
  const schemas = new Map<string, CrmProperty[]>();
  for (const { document } of mappings) {
    const connector = connectorFor(connectors, { crm: document.crm });
    if (!connector) continue;
    const objectType = objectTypeIn(connector, document.object) ?? document.object;
    schemas.set(schemaKey(document.crm, document.object), await connector.readSchema(objectType));
  }
  return schemas;
}
