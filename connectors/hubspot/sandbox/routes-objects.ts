/**
 * CRM objects, at their v3 and their date-based paths: single and batch read/create/update, list and
 * search, for contacts and companies. Writes through a date-based version must keep the portal's
 * validation rules (`require`); the legacy paths do not check them, as HubSpot's do not.
 */
import { Router, type Request, type Response } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS, isDateBased, type HubspotApiVersion } from '../api-version.js';
import { batchBody, batchStatus, standardError, type StandardError } from './batch-answer.js';
import {
  objectTypeOf,
  ValidationFailure,
  type ObjectType,
  type SandboxObjectStore,
  type StoredObject,
} from './object-store.js';
import { REQUEST_PROBLEMS, problemsMessage, validateProperties } from './property-validation.js';
import { MAX_SEARCH_RESULTS, searchObjects, SearchRequestSchema } from './search.js';
import { sendError, sendNotFound, sendRequired, sendValidation } from './wire-errors.js';

export const MAX_BATCH_INPUTS = 100;
const LABEL: Record<ObjectType, string> = { contacts: 'CONTACT', companies: 'COMPANY' };

function queryList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items
    .flatMap((v) => String(v).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

function typeOr404(req: Request, res: Response): ObjectType | undefined {
  const type = objectTypeOf(String(req.params.objectType));
  if (!type)
    sendError(res, 400, 'VALIDATION_ERROR', `Unable to infer object type from: ${String(req.params.objectType)}`);
  return type;
}

function propertiesOf(body: unknown): Record<string, unknown> | undefined {
  const p = (body as { properties?: unknown } | undefined)?.properties;
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
}

/** The app whose token made the call (set by the sandbox's token check). */
const appOf = (res: Response): number | undefined => res.locals.appId as number | undefined;

const notFoundIn = (type: ObjectType, ids: string[]) =>
  standardError(
    'OBJECT_NOT_FOUND',
    `Could not get some ${LABEL[type]} objects, they may be deleted or not exist. Check that ids are valid.`,
    { ids },
  );

export function objectRoutes(store: SandboxObjectStore): Router {
  const r = Router();

  const find = (type: ObjectType, id: string, idProperty?: string): StoredObject | undefined =>
    idProperty === 'email' && type === 'contacts' ? store.findContactByEmail(id) : store.get(type, id);

  /** The validation rules a write breaks: none on the legacy paths, which HubSpot does not hold to them. */
  const rulesBroken = (
    version: HubspotApiVersion,
    type: ObjectType,
    values: Record<string, unknown>,
    o?: StoredObject,
  ) => (isDateBased(version) ? store.ruleProblems(type, values, o) : []);

  for (const version of HUBSPOT_API_VERSIONS) {
    const objects = `${HUBSPOT_API_PATHS[version].objects}/:objectType`;

    r.post(`${objects}/batch/:action`, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const startedAt = new Date().toISOString();
      const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
      if (!Array.isArray(inputs))
        return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: "inputs" must be an array.');
      if (inputs.length > MAX_BATCH_INPUTS) {
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Batch input limit exceeded: ${inputs.length} inputs were sent but the limit is ${MAX_BATCH_INPUTS}.`,
        );
      }
      const action = String(req.params.action);
      const errors: StandardError[] = [];
      const results: unknown[] = [];
      if (action === 'read') {
        const body = req.body as { properties?: string[]; idProperty?: string };
        const missing: string[] = [];
        for (const input of inputs as { id?: unknown }[]) {
          const object = find(type, String(input?.id), body.idProperty);
          if (object) results.push(store.toWire(type, object, body.properties));
          else missing.push(String(input?.id));
        }
        if (missing.length > 0) errors.push(notFoundIn(type, missing));
      } else if (action === 'update' || action === 'create') {
        const all = (inputs as unknown[]).map((i) => propertiesOf(i) ?? {});
        const requestProblems = all
          .flatMap((p) => validateProperties(store.definitions[type], p))
          .filter((p) => REQUEST_PROBLEMS.has(p.code));
        if (requestProblems.length > 0)
          return sendValidation(res, [...new Map(requestProblems.map((p) => [p.name + p.code, p])).values()]);
        // A write that breaks one of the portal's rules refuses the whole batch, naming each input.
        const broken = (inputs as { id?: unknown }[]).map((input, i) => {
          if (action === 'create') return rulesBroken(version, type, all[i] ?? {});
          const object = find(type, String(input?.id));
          return object ? rulesBroken(version, type, all[i] ?? {}, object) : [];
        });
        if (broken.some((m) => m.length > 0))
          return sendRequired(
            res,
            broken,
            action === 'update' ? (inputs as { id?: unknown }[]).map((input) => String(input?.id)) : undefined,
          );
        (inputs as { id?: unknown }[]).forEach((input, i) => {
          const values = all[i] ?? {};
          const id = String(input?.id);
          try {
            if (action === 'update') {
              const object = find(type, id);
              if (!object) return errors.push(notFoundIn(type, [id]));
              store.update(type, object, values, 'INTEGRATION', undefined, appOf(res));
              results.push(store.toWire(type, object, Object.keys(values)));
            } else {
              const existing =
                type === 'contacts' && typeof values.email === 'string'
                  ? store.findContactByEmail(values.email)
                  : undefined;
              if (existing)
                return errors.push(
                  standardError('CONFLICT', `Contact already exists. Existing ID: ${existing.id}`, {
                    ids: [existing.id],
                  }),
                );
              const created = store.create(type, values, 'INTEGRATION', undefined, appOf(res));
              results.push(store.toWire(type, created, Object.keys(values)));
            }
          } catch (e) {
            if (!(e instanceof ValidationFailure)) throw e;
            errors.push(
              standardError('VALIDATION_ERROR', problemsMessage(e.problems), {
                ids: action === 'update' ? [id] : [String(i)],
                propertyName: e.problems.map((p) => p.name),
              }),
            );
          }
        });
      } else {
        return sendNotFound(res, `batch/${action}`);
      }
      res
        .status(batchStatus(version, action === 'create' ? 201 : 200, errors))
        .json(batchBody(results, errors, startedAt));
    });

    r.post(`${objects}/search`, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const parsed = SearchRequestSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Invalid search request at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        );
      }
      const after = parsed.data.after === undefined ? 0 : Number(parsed.data.after);
      if (!Number.isInteger(after) || after < 0 || after + parsed.data.limit > MAX_SEARCH_RESULTS) {
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Invalid search request: a search returns at most ${MAX_SEARCH_RESULTS} results; after + limit may ` +
            `not exceed ${MAX_SEARCH_RESULTS}`,
        );
      }
      const now = Date.now();
      const found = searchObjects(store.objects[type].values(), parsed.data, store.definitions[type], (o) =>
        store.searchView(o, now),
      );
      res.json({
        total: found.total,
        results: found.page.map((o) => store.toWire(type, o, parsed.data.properties)),
        ...(found.nextAfter ? { paging: { next: { after: found.nextAfter } } } : {}),
      });
    });

    r.get(objects, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const limit = Math.min(Number(req.query.limit ?? 10) || 10, 100);
      const after = Number(req.query.after ?? 0) || 0;
      const { page, more } = store.listAfter(type, after, limit);
      const last = page[page.length - 1];
      res.json({
        results: page.map((o) => store.toWire(type, o, queryList(req.query.properties))),
        ...(more && last ? { paging: { next: { after: last.id, link: `?after=${last.id}` } } } : {}),
      });
    });

    r.post(objects, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const values = propertiesOf(req.body) ?? {};
      const existing =
        type === 'contacts' && typeof values.email === 'string' ? store.findContactByEmail(values.email) : undefined;
      if (existing) return sendError(res, 409, 'CONFLICT', `Contact already exists. Existing ID: ${existing.id}`);
      try {
        store.check(type, values);
        const broken = rulesBroken(version, type, values);
        if (broken.length > 0) return sendValidation(res, broken);
        const created = store.create(type, values, 'INTEGRATION', undefined, appOf(res));
        res.status(201).json(store.toWire(type, created, Object.keys(values)));
      } catch (e) {
        if (e instanceof ValidationFailure) return sendValidation(res, e.problems);
        throw e;
      }
    });

    r.get(`${objects}/:id`, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const object = find(type, String(req.params.id), req.query.idProperty as string | undefined);
      if (!object) return sendNotFound(res, 'resource');
      res.json(store.toWire(type, object, queryList(req.query.properties)));
    });

    r.patch(`${objects}/:id`, (req, res) => {
      const type = typeOr404(req, res);
      if (!type) return;
      const object = find(type, String(req.params.id), req.query.idProperty as string | undefined);
      if (!object) return sendNotFound(res, `resource ${LABEL[type]} ${String(req.params.id)}`);
      const values = propertiesOf(req.body);
      if (!values)
        return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: "properties" must be an object.');
      try {
        store.check(type, values);
        const broken = rulesBroken(version, type, values, object);
        if (broken.length > 0) return sendValidation(res, broken);
        store.update(type, object, values, 'INTEGRATION', undefined, appOf(res));
        res.json(store.toWire(type, object, Object.keys(values)));
      } catch (e) {
        if (e instanceof ValidationFailure) return sendValidation(res, e.problems);
        throw e;
      }
    });
  }

  return r;
}
