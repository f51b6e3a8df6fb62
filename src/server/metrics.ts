/**
 * Prometheus metrics. One registry per service instance (tests start several in one process), so
 * nothing registers on prom-client's global registry.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  readonly eventsReceived = new Counter({
    name: 'crm_enrich_events_received_total',
    help: 'Webhook events received, by CRM and outcome (stored, duplicate, rejected, ignored, store_failed, busy)',
    labelNames: ['crm', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobs = new Counter({
    name: 'crm_enrich_jobs_total',
    help: 'Enrichment jobs finished, by outcome (enriched, no_match, skipped, unchanged, failed, retried)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly foreignTokenChanges = new Counter({
    name: 'crm_enrich_foreign_token_changes_total',
    help:
      "Creations and changes made with crm-enrich's own token that crm-enrich did not make (a script " +
      'reusing it): enriched like any other',
    labelNames: ['crm'] as const,
    registers: [this.registry],
  });

  readonly partnerCalls = new Counter({
    name: 'crm_enrich_partner_calls_total',
    help: 'Requests to the partner API, by HTTP status (or "error" for a failed connection)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly crmCalls = new Counter({
    name: 'crm_enrich_crm_calls_total',
    help: 'Requests to a CRM API, by CRM and operation',
    labelNames: ['crm', 'operation'] as const,
    registers: [this.registry],
  });

  readonly cacheLookups = new Counter({
    name: 'crm_enrich_lookup_cache_total',
    help: 'Partner lookups answered from the cache (hit) or not (miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly jobChanges = new Counter({
    name: 'crm_enrich_job_changes_total',
    help:
      'Job changes detected, by connection and kind (employer: a new employer; new_role: a newer start at ' +
      'the same one)',
    labelNames: ['connection', 'kind'] as const,
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'crm_enrich_queue_depth',
    help: 'Jobs waiting or running, by queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly webhookToWrite = new Histogram({
    name: 'crm_enrich_webhook_to_write_seconds',
    help: 'Time from receiving a record event to writing the enriched record to the CRM',
    buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'crm_enrich_' });
  }
}
