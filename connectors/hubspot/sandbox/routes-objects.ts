/**
 * CRM objects v3: single and batch read/create/update, list and search, for contacts and companies.
 */
import { Router, type Request, type Response } from 'express';
import {
  objectTypeOf,
  ValidationFailure,
  type ObjectType,
  type SandboxObjectStore,
  type StoredObject,
} from './object-store.js';
import { REQUEST_PROBLEMS, problemsMessage, validateProperties } from './property-validation.js';
import { MAX_SEARCH_RESULTS, searchObjects, SearchRequestSchema } from './search.js';
import { errorBody, sendError, sendNotFound, sendRequired, sendValidation, type ErrorDetail } from './wire-errors.js';

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

export function objectRoutes(store: SandboxObjectStore): Router {
  const r = Router();

  const find = (type: ObjectType, id: string, idProperty?: string): StoredObject | undefined =>
    idProperty === 'email' && type === 'contacts' ? store.findContactByEmail(id) : store.get(type, id);

  const batchEnvelope = (results: unknown[], errors: ErrorDetail[], startedAt: string) => ({
    status: 'COMPLETE',
    results,
    ...(errors.length > 0
      ? {
          numErrors: errors.length,
          errors: errors.map((e) =>
            errorBody(
              e.code === 'OBJECT_NOT_FOUND'
                ? 'OBJECT_NOT_FOUND'
                : e.code === 'CONFLICT'
                  ? 'CONFLICT'
                  : 'VALIDATION_ERROR',
              e.message,
              { context: e.context },
            ),
          ),
        }
      : {}),
    startedAt,
    completedAt: new Date().toISOString(),
  });

  r.post('/crm/v3/objects/:objectType/batch/:action', (req, res) => {
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
    const errors: ErrorDetail[] = [];
    const results: unknown[] = [];
    if (action === 'read') {
      const body = req.body as { properties?: string[]; idProperty?: string };
      const missing: string[] = [];
      for (const input of inputs as { id?: unknown }[]) {
        const object = find(type, String(input?.id), body.idProperty);
        if (object) results.push(store.toWire(type, object, body.properties));
        else missing.push(String(input?.id));
      }
      if (missing.length > 0) {
        errors.push({
          code: 'OBJECT_NOT_FOUND',
          message:
            `Could not get some ${LABEL[type]} objects, they may be deleted or not exist. Check that ` +
            'ids are valid.',
          context: { ids: missing },
        });
      }
    } else if (action === 'update' || action === 'create') {
      const all = (inputs as unknown[]).map((i) => propertiesOf(i) ?? {});
      const requestProblems = all
        .flatMap((p) => validateProperties(store.definitions[type], p))
        .filter((p) => REQUEST_PROBLEMS.has(p.code));
      if (requestProblems.length > 0)
        return sendValidation(res, [...new Map(requestProblems.map((p) => [p.name + p.code, p])).values()]);
      // A write that leaves one of the portal's required properties empty refuses the whole batch, naming each input.
      const missing = (inputs as { id?: unknown }[]).map((input, i) => {
        if (action === 'create') return store.missingRequired(type, all[i] ?? {});
        const object = find(type, String(input?.id));
        return object ? store.missingRequired(type, all[i] ?? {}, object) : [];
      });
      if (missing.some((m) => m.length > 0))
        return sendRequired(
          res,
          missing,
          action === 'update' ? (inputs as { id?: unknown }[]).map((input) => String(input?.id)) : undefined,
        );
      (inputs as { id?: unknown }[]).forEach((input, i) => {
        const values = all[i] ?? {};
        const id = String(input?.id);
        try {
          if (action === 'update') {
            const object = find(type, id);
            if (!object) {
              errors.push({
                code: 'OBJECT_NOT_FOUND',
                message:
                  `Could not get some ${LABEL[type]} objects, they may be deleted or not exist. Check ` +
                  'that ids are valid.',
                context: { ids: [id] },
              });
              return;
            }
            store.update(type, object, values, 'INTEGRATION', undefined, appOf(res));
            results.push(store.toWire(type, object, Object.keys(values)));
          } else {
            const existing =
              type === 'contacts' && typeof values.email === 'string'
                ? store.findContactByEmail(values.email)
                : undefined;
            if (existing) {
              errors.push({
                code: 'CONFLICT',
                message: `Contact already exists. Existing ID: ${existing.id}`,
                context: { ids: [existing.id] },
              });
              return;
            }
            const created = store.create(type, values, 'INTEGRATION', undefined, appOf(res));
            results.push(store.toWire(type, created, Object.keys(values)));
          }
        } catch (e) {
          if (!(e instanceof ValidationFailure)) throw e;
          errors.push({
            code: 'VALIDATION_ERROR',
            message: problemsMessage(e.problems),
            context: { ids: action === 'update' ? [id] : [String(i)], propertyName: e.problems.map((p) => p.name) },
          });
        }
      });
    } else {
      return sendNotFound(res, `batch/${action}`);
    }
    const ok = action === 'create' ? 201 : 200;
    res.status(errors.length > 0 ? 207 : ok).json(batchEnvelope(results, errors, startedAt));
  });

  r.post('/crm/v3/objects/:objectType/search', (req, res) => {
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

  r.get('/crm/v3/objects/:objectType', (req, res) => {
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

  r.post('/crm/v3/objects/:objectType', (req, res) => {
    const type = typeOr404(req, res);
    if (!type) return;
    const values = propertiesOf(req.body) ?? {};
    const existing =
      type === 'contacts' && typeof values.email === 'string' ? store.findContactByEmail(values.email) : undefined;
    if (existing) return sendError(res, 409, 'CONFLICT', `Contact already exists. Existing ID: ${existing.id}`);
    try {
      const created = store.create(type, values, 'INTEGRATION', undefined, appOf(res));
      res.status(201).json(store.toWire(type, created, Object.keys(values)));
    } catch (e) {
      if (e instanceof ValidationFailure) return sendValidation(res, e.problems);
      throw e;
    }
  });

  r.get('/crm/v3/objects/:objectType/:id', (req, res) => {
    const type = typeOr404(req, res);
    if (!type) return;
    const object = find(type, String(req.params.id), req.query.idProperty as string | undefined);
    if (!object) return sendNotFound(res, 'resource');
    res.json(store.toWire(type, object, queryList(req.query.properties)));
  });

  r.patch('/crm/v3/objects/:objectType/:id', (req, res) => {
    const type = typeOr404(req, res);
    if (!type) return;
    const object = find(type, String(req.params.id), req.query.idProperty as string | undefined);
    if (!object) return sendNotFound(res, `resource ${LABEL[type]} ${String(req.params.id)}`);
    const values = propertiesOf(req.body);
    if (!values) return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: "properties" must be an object.');
    try {
      store.update(type, object, values, 'INTEGRATION', undefined, appOf(res));
      res.json(store.toWire(type, object, Object.keys(values)));
    } catch (e) {
      if (e instanceof ValidationFailure) return sendValidation(res, e.problems);
      throw e;
    }
  });

  return r;
}
