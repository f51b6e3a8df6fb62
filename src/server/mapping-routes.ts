/**
 * The admin API's mapping routes: list, show, one version's document, what the editor's pickers
 * offer (CRM properties, partner fields, transforms, rules), validate, render edited field rows back
 * into the document, preview on a real record, save a version and roll back.
 */
import { Router } from 'express';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { planRecord } from '../enrich/record/record-plan.js';
import { MappingError, planValues, type MappingProblem } from '../mapping/index.js';
import { RULES, RULE_DESCRIPTIONS, DEFAULT_RULE } from '../mapping/format.js';
import { RenderError, renderFields } from '../mapping/render-fields.js';
import { sourceCatalog, type SourceKind } from '../mapping/source-paths.js';
import { TRANSFORMS } from '../mapping/transforms/registry.js';
import { describeKind } from '../mapping/transforms/transform.js';
import { OBJECTS } from '../mapping/validate.js';
import { connectorFor, objectTypeIn } from '../core/connector-lookup.js';
import type { AdminContext } from './admin-context.js';
import { MAX_STORED_INT, parse, route, wholeNumber, wholeNumberParam } from './admin-request.js';
import { HttpError } from './http-error.js';

const DocumentBody = z.object({
  document: z
    .string({ error: 'document must be the mapping file text (YAML or JSON)' })
    .min(1, 'document must not be empty'),
});
const SaveBody = DocumentBody.extend({
  author: z.string({ error: 'author is required' }).trim().min(1, 'author is required'),
  comment: z.string().max(2000, 'comment is at most 2000 characters').default(''),
});
const PreviewBody = z.object({
  document: z.string().min(1).optional(),
  crm: z.string().min(1, 'crm is required'),
  object: z.string().min(1, 'object is required'),
  recordId: z.string({ error: 'recordId is required' }).min(1, 'recordId is required'),
});
const RollbackBody = z.object({ version: wholeNumber(1, MAX_STORED_INT) });
const RenderBody = DocumentBody.extend({
  fields: z
    .array(z.record(z.string(), z.unknown()), { error: 'fields must be a list of field rows ({ target, from, ... })' })
    .max(1000, 'fields: at most 1,000 rows')
    .optional(),
});

/** A problem as the API shows it: the path as `mappings check` prints it, under `field`. */
export const problemView = (p: MappingProblem) => ({ ...p, field: p.path.join(' > ') });

/** The document's field rows as plain data, or null when the text is not a mapping with a fields list. */
function fieldRows(text: string): Record<string, unknown>[] | null {
  const doc = parseDocument(text);
  if (doc.errors.length) return null;
  try {
    const fields = (doc.toJS({ maxAliasCount: 50 }) as { fields?: unknown } | null)?.fields;
    return Array.isArray(fields)
      ? fields.filter((f): f is Record<string, unknown> => f !== null && typeof f === 'object' && !Array.isArray(f))
      : null;
  } catch {
    return null;
  }
}

export function mappingRoutes(service: AdminContext): Router {
  const router = Router();

  /** The active mapping of `crm/object`, or a 404 naming what is missing. */
  const activeEntry = (crm: string, object: string) => {
    const entry = service.mappings.entry(crm, object);
    if (!entry) throw new HttpError(404, 'not_found', `no active mapping for ${crm}/${object}`, { field: 'object' });
    return entry;
  };

  router.get(
    '/mappings',
    route(async (_req, res) => {
      res.json({
        mappings: service.mappings.list().map(({ version: v }) => ({
          crm: v.crm,
          object: v.objectType,
          version: v.version,
          author: v.author,
          comment: v.comment,
          createdAt: v.createdAt,
        })),
      });
    }),
  );

  router.get(
    '/mappings/:crm/:object',
    route(async (req, res) => {
      const entry = activeEntry(String(req.params.crm), String(req.params.object));
      const versions = await service.store.mappings.list(entry.version.crm, entry.version.objectType);
      res.json({
        active: { ...entry.version },
        versions: versions.map((v) => ({
          version: v.version,
          author: v.author,
          comment: v.comment,
          createdAt: v.createdAt,
          active: v.active,
        })),
      });
    }),
  );

  router.get(
    '/mappings/:crm/:object/versions/:version',
    route(async (req, res) => {
      const { version: v } = activeEntry(String(req.params.crm), String(req.params.object));
      const number = wholeNumberParam(req.params.version, 'version', { min: 1, max: MAX_STORED_INT });
      const found = await service.store.mappings.get(v.crm, v.objectType, number);
      if (!found)
        throw new HttpError(404, 'not_found', `${v.crm}/${v.objectType} has no version ${number}`, {
          field: 'version',
        });
      res.json({ version: found });
    }),
  );

  // What the editor's pickers offer. Every list comes from the code that checks a mapping (the CRM's
  // own schema, the partner schemas, the transform registry, the rule list), so a picker never offers
  // what `mappings check` would refuse for being unknown.
  router.get(
    '/mappings/:crm/:object/fields',
    route(async (req, res) => {
      const crm = String(req.params.crm);
      const connector = connectorFor(service.connectors, { crm });
      if (!connector) throw new HttpError(404, 'not_found', `no connection to ${crm} is configured`, { field: 'crm' });
      const objectType = objectTypeIn(connector, String(req.params.object));
      if (!objectType)
        throw new HttpError(404, 'not_found', `${crm} has no object "${String(req.params.object)}"`, {
          field: 'object',
        });
      const source: SourceKind | undefined =
        service.mappings.get(crm, objectType)?.source ??
        (OBJECTS as Record<string, Record<string, SourceKind>>)[crm]?.[objectType];
      const properties = await connector.readSchema(objectType);
      const sources = (kind: SourceKind) =>
        [...sourceCatalog(kind).paths].map(([path, k]) => ({
          path,
          type: describeKind(k),
          ...(k.domain ? { values: [...k.domain] } : {}),
        }));
      res.json({
        crm,
        object: objectType,
        source: source ?? null,
        targets: properties
          .map((p) => ({
            name: p.name,
            label: p.label,
            type: p.type,
            ...(p.crmType ? { crmType: p.crmType } : {}),
            readOnly: !p.writable,
            custom: p.custom,
            ...(p.options ? { options: p.options } : {}),
          }))
          .sort((a, b) => a.label.localeCompare(b.label, 'en') || a.name.localeCompare(b.name)),
        sources: { person: sources('person'), company: sources('company') },
        rules: RULES.map((name) => ({ name, description: RULE_DESCRIPTIONS[name], default: name === DEFAULT_RULE })),
        transforms: [...TRANSFORMS.values()].map((t) => ({ name: t.name, description: t.summary })),
      });
    }),
  );

  router.post(
    '/mappings/validate',
    route(async (req, res) => {
      const { document } = parse(DocumentBody, req.body);
      const compiled = service.mappings.compile(document, 'candidate');
      res.json({ valid: true, crm: compiled.crm, object: compiled.object, problems: [] });
    }),
  );

  // The editor's round trip: its rows written into the document (when sent), then the document
  // checked as validate checks it. Problems are data here (200), not an error: a draft with
  // problems is the normal state of an edit in progress.
  router.post(
    '/mappings/render',
    route(async (req, res) => {
      const body = parse(RenderBody, req.body);
      let document = body.document;
      if (body.fields) {
        try {
          document = renderFields(body.document, body.fields);
        } catch (error) {
          if (error instanceof RenderError)
            throw new HttpError(400, 'invalid_request', `document: ${error.message}`, { field: 'document' });
          throw error;
        }
      }
      let problems: ReturnType<typeof problemView>[] = [];
      try {
        service.mappings.compile(document, 'candidate');
      } catch (error) {
        if (!(error instanceof MappingError)) throw error;
        problems = error.problems.map(problemView);
      }
      res.json({ document, fields: fieldRows(document), valid: problems.length === 0, problems });
    }),
  );

  router.post(
    '/mappings/preview',
    route(async (req, res) => {
      const body = parse(PreviewBody, req.body);
      const connector = connectorFor(service.connectors, { crm: body.crm });
      if (!connector)
        throw new HttpError(404, 'not_found', `no connection to ${body.crm} is configured`, { field: 'crm' });
      const objectType = objectTypeIn(connector, body.object);
      if (!objectType)
        throw new HttpError(400, 'invalid_request', `object: ${body.crm} has no object "${body.object}"`, {
          field: 'object',
        });
      const mapping = body.document
        ? service.mappings.compile(body.document, 'candidate')
        : service.mappings.get(body.crm, objectType);
      if (!mapping)
        throw new HttpError(
          404,
          'not_found',
          `no active mapping for ${body.crm}/${objectType}; send a candidate document`,
          { field: 'document' },
        );
      const [record] = await connector.readRecords(objectType, [body.recordId], [...mapping.propertiesToRead], {
        priority: 'interactive',
      });
      if (!record)
        throw new HttpError(404, 'not_found', `${body.crm} ${objectType} ${body.recordId} does not exist`, {
          field: 'recordId',
        });
      const state = (await service.ports.state.getMany(connector.connection, objectType, [record.id])).get(record.id);
      // Planned as a run would plan it (stamp and length limit included);
      // a record without a match shows what nothing to map means.
      const planned = await planRecord(record, mapping, service.lookups, state, 'interactive', new Date());
      const hit = planned.kind === 'planned' ? planned.hit : null;
      const result =
        planned.kind === 'planned'
          ? planned.plan
          : planValues(mapping, record.properties, undefined, state?.lastWritten ?? {}, new Date());
      res.json({
        record: { id: record.id },
        match: hit ? { by: hit.key.by } : null,
        rows: result.decisions.map((d) => ({
          property: d.property,
          current: d.current,
          new: d.next,
          rule: d.rule,
          outcome: d.outcome,
          reason: d.reason,
        })),
        wouldWrite: result.writes,
      });
    }),
  );

  router.post(
    '/mappings/:crm/:object/versions',
    route(async (req, res) => {
      const body = parse(SaveBody, req.body);
      const candidate = service.mappings.compile(body.document, 'candidate');
      if (
        candidate.crm !== req.params.crm ||
        candidate.object.toLowerCase() !== String(req.params.object).toLowerCase()
      ) {
        throw new HttpError(
          400,
          'invalid_request',
          `document: it is for ${candidate.crm}/${candidate.object}, not ` +
            `${String(req.params.crm)}/${String(req.params.object)}`,
          { field: 'document' },
        );
      }
      const entry = await service.mappings.save(body.document, body.author, body.comment);
      res.status(201).json({ active: entry.version });
    }),
  );

  router.post(
    '/mappings/:crm/:object/rollback',
    route(async (req, res) => {
      const { version } = parse(RollbackBody, req.body);
      const entry = await service.mappings.rollback(String(req.params.crm), String(req.params.object), version);
      res.json({ active: entry.version });
    }),
  );

  return router;
}
