/**
 * Records in the admin API: find a record by id, e-mail or name (the CRM's own search), read one
 * record's enrichment state with its audit trail grouped by run and links to it and its company in
 * the CRM, and enrich one now.
 */
import { Router } from 'express';
import type { CrmConnector, CrmRecord, RecordLabels } from '../core/connector.js';
import { queueName } from '../enrich/jobs.js';
import { connectorFor, mappedObject, objectTypeIn } from '../core/connector-lookup.js';
import type { AuditRow } from '../store/audit-log.js';
import type { AdminContext } from './admin-context.js';
import { route, wholeNumberParam } from './admin-request.js';
import { HttpError } from './http-error.js';

const SEARCH_LIMIT = 20;

function labelsFor(connector: CrmConnector, objectType: string): RecordLabels {
  return connector.recordLabels?.[objectType] ?? { name: [], detail: '' };
}

function describe(record: CrmRecord, labels: RecordLabels) {
  const name = labels.name
    .map((p) => record.properties[p] ?? '')
    .filter(Boolean)
    .join(' ');
  return { id: record.id, name: name || null, detail: (labels.detail && record.properties[labels.detail]) || null };
}

/** One enrichment run: the audit rows one job (or one person's action) wrote, oldest row first. */
export interface AuditRun {
  jobId: string | null;
  actor: string | null;
  at: Date;
  rows: AuditRow[];
  /**
   * What started the job (created, changed, refresh, backfill, workflow, card, flow, ...), while the
   * queue keeps it; null for a person's action and for jobs it no longer keeps.
   */
  trigger?: string | null;
}

/**
 * Rows come newest first; a run is the rows of one job, or of one actor within the same second when there is no job.
 */
export function groupRuns(audit: AuditRow[]): AuditRun[] {
  const runs: AuditRun[] = [];
  for (const row of audit) {
    const last = runs.at(-1);
    const same =
      last &&
      (row.jobId !== null
        ? last.jobId === row.jobId
        : last.jobId === null && last.actor === row.actor && Math.abs(last.at.getTime() - row.at.getTime()) < 1000);
    if (same) {
      last.rows.unshift(row);
      if (row.at < last.at) last.at = row.at;
    } else runs.push({ jobId: row.jobId, actor: row.actor, at: row.at, rows: [row] });
  }
  return runs;
}

/** Each run with what started its job, read from the queue in one query. */
async function withTriggers(
  service: AdminContext,
  key: { connection: string; objectType: string },
  runs: AuditRun[],
): Promise<AuditRun[]> {
  const ids = [...new Set(runs.map((r) => r.jobId).filter((j): j is string => j !== null))];
  const jobs = await service.store.queue.lookup(queueName(key.connection, key.objectType), ids);
  return runs.map((r) => ({ ...r, trigger: (r.jobId && jobs.get(r.jobId)?.reason) || null }));
}

export function recordRoutes(service: AdminContext): Router {
  const router = Router();

  function target(connection: string, object: string) {
    const connector = connectorFor(service.connectors, { connection });
    if (!connector)
      throw new HttpError(404, 'not_found', `no connection "${connection}" is configured`, { field: 'connection' });
    const objectType = objectTypeIn(connector, object);
    if (!objectType)
      throw new HttpError(
        404,
        'not_found',
        `${connection} has no object "${object}"; it has ${connector.objectTypes.join(', ')}`,
        { field: 'object' },
      );
    return { connector, objectType };
  }

  router.get(
    '/records/:connection/:object',
    route(async (req, res) => {
      const { connector, objectType } = target(String(req.params.connection), String(req.params.object));
      const text = typeof req.query.q === 'string' ? req.query.q.trim() : '';
      if (!text)
        throw new HttpError(400, 'invalid_request', 'q: give a record id, an e-mail address or a name to search for', {
          field: 'q',
        });
      if (text.length > 200) throw new HttpError(400, 'invalid_request', 'q: at most 200 characters', { field: 'q' });
      const labels = labelsFor(connector, objectType);
      const properties = [...labels.name, ...(labels.detail ? [labels.detail] : [])];
      const found = new Map<string, CrmRecord>();
      if (connector.isRecordId?.(text))
        for (const r of await connector.readRecords(objectType, [text], properties, { priority: 'interactive' }))
          found.set(r.id, r);
      if (connector.searchRecords && found.size === 0) {
        for (const r of await connector.searchRecords(objectType, text, properties, SEARCH_LIMIT)) found.set(r.id, r);
      }
      const records = [...found.values()].slice(0, SEARCH_LIMIT);
      const states = await service.ports.state.getMany(
        connector.connection,
        objectType,
        records.map((r) => r.id),
      );
      res.json({
        results: await Promise.all(
          records.map(async (r) => ({
            ...describe(r, labels),
            status: states.get(r.id)?.status ?? null,
            url: (await connector.recordUrl?.(objectType, r.id)) ?? null,
          })),
        ),
      });
    }),
  );

  router.get(
    '/records/:connection/:object/:id',
    route(async (req, res) => {
      const key = {
        connection: String(req.params.connection),
        objectType: String(req.params.object),
        recordId: String(req.params.id),
      };
      const limit = wholeNumberParam(req.query.limit, 'limit', { min: 1, max: 1000, fallback: 100 });
      const { state, audit } = await service.store.recordView(key, limit);
      if (!state && audit.length === 0)
        throw new HttpError(
          404,
          'not_found',
          `nothing is known about ${key.connection} ${key.objectType} ${key.recordId}`,
          { field: 'id' },
        );
      const connector = connectorFor(service.connectors, { connection: key.connection });
      const companyType = connector?.companyObjectType;
      const companyId = state?.companyId ?? null;
      res.json({
        state: state ?? null,
        crmUrl: (await connector?.recordUrl?.(key.objectType, key.recordId)) ?? null,
        company: companyId
          ? {
              id: companyId,
              reason: state?.companyReason ?? null,
              url: (companyType && (await connector?.recordUrl?.(companyType, companyId))) || null,
              objectType: companyType ?? null,
            }
          : null,
        runs: await withTriggers(service, key, groupRuns(audit)),
        // At the limit, older runs may be left out: the page then cannot number runs from the first.
        complete: audit.length < limit,
        audit,
      });
    }),
  );

  router.post(
    '/records/:connection/:object/:id/enrich',
    route(async (req, res) => {
      const connection = String(req.params.connection);
      const mapped = mappedObject(service.connectors, service.mappings, { connection }, String(req.params.object));
      if (!mapped) {
        throw new HttpError(
          404,
          'not_found',
          `${connection}/${String(req.params.object)} is not a mapped object of a configured connection`,
          { field: 'object' },
        );
      }
      const result = await service.enrichNow(mapped.connector.connection, mapped.objectType, String(req.params.id));
      res.status(202).json(result);
    }),
  );

  router.get(
    '/jobs/retrying',
    route(async (req, res) => {
      const limit = wholeNumberParam(req.query.limit, 'limit', { min: 1, max: 1000, fallback: 100 });
      res.json({ retrying: await service.store.queue.retrying({ limit }) });
    }),
  );

  return router;
}
