/**
 * Associations v4 between contacts and companies: the single default and labelled PUTs, the list of
 * one object's associations, the batch endpoints (associate default, create with types, archive labels,
 * read), the labels (association definitions) of the pair, listed and created,
 * with HubSpot's input limits, 207 answers for the inputs that name missing objects, and the
 * type ids as seen from each side (contact to company 279 / primary 1, company to contact 280 / 2).
 */
import { Router, type Request, type Response } from 'express';
import type { SandboxAssociations } from './associations.js';
import { objectTypeOf, type ObjectType, type SandboxObjectStore } from './object-store.js';
import { sendError, sendNotFound, type ErrorDetail } from './wire-errors.js';

/** HubSpot's input limits of the v4 association batch endpoints. */
export const ASSOCIATION_BATCH_LIMITS = { create: 2_000, read: 1_000 } as const;

const TYPE_IDS: Record<ObjectType, string> = { contacts: '0-1', companies: '0-2' };

interface Pair {
  from: ObjectType;
  to: ObjectType;
}

function pairOr400(req: Request, res: Response): Pair | undefined {
  const from = objectTypeOf(String(req.params.from));
  const to = objectTypeOf(String(req.params.to));
  if (!from || !to || from === to) {
    sendError(
      res,
      400,
      'VALIDATION_ERROR',
      `The sandbox portal associates contacts with companies; got ${String(req.params.from)} to ` +
        `${String(req.params.to)}.`,
    );
    return undefined;
  }
  return { from, to };
}

/** Contact id and company id of a pair given in either direction. */
function sides(pair: Pair, fromId: string, toId: string): [contactId: string, companyId: string] {
  return pair.from === 'contacts' ? [fromId, toId] : [toId, fromId];
}

function inputsOr400(req: Request, res: Response, limit: number): unknown[] | undefined {
  const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
  if (!Array.isArray(inputs)) {
    sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: inputs must be an array.');
    return undefined;
  }
  if (inputs.length > limit) {
    sendError(
      res,
      400,
      'VALIDATION_ERROR',
      `Batch input is too large: ${inputs.length} inputs, the limit is ${limit}.`,
    );
    return undefined;
  }
  return inputs as unknown[];
}

function idOf(value: unknown): string | undefined {
  const id = (value as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * The object pair and inputs of a batch that names association types (create, label archive): each
 * pair's ids and its type ids from the contact's side, or a 400 sent when the pair or the batch is not
 * one, or an input lacks an id or a type, or names a type this pair does not have.
 */
function typedBatchOr400(
  req: Request,
  res: Response,
  associations: SandboxAssociations,
): { pair: Pair; parsed: { fromId: string; toId: string; typeIds: number[] }[] } | undefined {
  const pair = pairOr400(req, res);
  if (!pair) return undefined;
  const inputs = inputsOr400(req, res, ASSOCIATION_BATCH_LIMITS.create);
  if (!inputs) return undefined;
  const fromContact = pair.from === 'contacts';
  const parsed: { fromId: string; toId: string; typeIds: number[] }[] = [];
  for (const input of inputs) {
    const { from, to, types } = input as { from?: unknown; to?: unknown; types?: unknown };
    const fromId = idOf(from);
    const toId = idOf(to);
    if (!fromId || !toId || !Array.isArray(types) || types.length === 0) {
      sendError(
        res,
        400,
        'VALIDATION_ERROR',
        'Invalid input JSON: every input needs from.id, to.id and at least one of types.',
      );
      return undefined;
    }
    const typeIds = types.map((t) => Number((t as { associationTypeId?: unknown }).associationTypeId));
    const unknown = typeIds.filter((t) => !associations.knownType(fromContact, t));
    if (unknown.length) {
      sendError(
        res,
        400,
        'VALIDATION_ERROR',
        `Unknown association type ids from ${pair.from} to ${pair.to}: ${unknown.join(', ')}.`,
      );
      return undefined;
    }
    parsed.push({ fromId, toId, typeIds: fromContact ? typeIds : typeIds.map((t) => associations.toContactSide(t)) });
  }
  return { pair, parsed };
}

function notFound(type: ObjectType, ids: string[]): ErrorDetail & { status: string; category: string } {
  return {
    status: 'error',
    category: 'OBJECT_NOT_FOUND',
    message: `No ${type} with ids ${ids.join(', ')}.`,
    context: { ids },
  };
}

function batchBody(results: unknown[], errors: unknown[]) {
  const now = new Date().toISOString();
  return {
    status: 'COMPLETE',
    results,
    ...(errors.length ? { numErrors: errors.length, errors } : {}),
    startedAt: now,
    completedAt: now,
  };
}

export function associationRoutes(store: SandboxObjectStore): Router {
  const r = Router();
  const associations: SandboxAssociations = store.associations;
  const exists = (type: ObjectType, id: string) => store.get(type, id) !== undefined;
  /** The not-found error of an input whose objects do not both exist. */
  const missingOf = (pair: Pair, fromId: string, toId: string) => {
    if (!exists(pair.from, fromId)) return notFound(pair.from, [fromId]);
    if (!exists(pair.to, toId)) return notFound(pair.to, [toId]);
    return undefined;
  };
  const spec = (fromContact: boolean, primary = false) => {
    const typeId = fromContact ? (primary ? 1 : 279) : primary ? 2 : 280;
    return { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId };
  };

  r.put('/crm/v4/objects/:from/:fromId/associations/default/:to/:toId', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const fromId = String(req.params.fromId);
    const toId = String(req.params.toId);
    if (!exists(pair.from, fromId)) return sendNotFound(res, `${pair.from} ${fromId}`);
    if (!exists(pair.to, toId)) return sendNotFound(res, `${pair.to} ${toId}`);
    associations.add(...sides(pair, fromId, toId), []);
    const fromContact = pair.from === 'contacts';
    res.json(
      batchBody(
        [
          { from: { id: fromId }, to: { id: toId }, associationSpec: spec(fromContact) },
          { from: { id: toId }, to: { id: fromId }, associationSpec: spec(!fromContact) },
        ],
        [],
      ),
    );
  });

  r.put('/crm/v4/objects/:from/:fromId/associations/:to/:toId', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const fromId = String(req.params.fromId);
    const toId = String(req.params.toId);
    const body: unknown = req.body;
    if (!Array.isArray(body) || body.length === 0)
      return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: expected an array of association specs.');
    const typeIds = body.map((s) => Number((s as { associationTypeId?: unknown }).associationTypeId));
    const fromContact = pair.from === 'contacts';
    const unknown = typeIds.filter((t) => !associations.knownType(fromContact, t));
    if (unknown.length)
      return sendError(
        res,
        400,
        'VALIDATION_ERROR',
        `Unknown association type ids from ${pair.from} to ${pair.to}: ${unknown.join(', ')}.`,
      );
    if (!exists(pair.from, fromId)) return sendNotFound(res, `${pair.from} ${fromId}`);
    if (!exists(pair.to, toId)) return sendNotFound(res, `${pair.to} ${toId}`);
    associations.add(
      ...sides(pair, fromId, toId),
      fromContact ? typeIds : typeIds.map((t) => associations.toContactSide(t)),
    );
    const labels =
      associations
        .associated(pair.from, fromId)
        .find((a) => a.id === toId)
        ?.types.flatMap((t) => (t.label ? [t.label] : [])) ?? [];
    res.status(201).json({
      fromObjectTypeId: TYPE_IDS[pair.from],
      fromObjectId: Number(fromId),
      toObjectTypeId: TYPE_IDS[pair.to],
      toObjectId: Number(toId),
      labels,
    });
  });

  r.get('/crm/v4/objects/:from/:fromId/associations/:to', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const results = associations
      .associated(pair.from, String(req.params.fromId))
      .map((a) => ({ toObjectId: Number(a.id), associationTypes: a.types }));
    res.json({ results });
  });

  r.post('/crm/v4/associations/:from/:to/batch/associate/default', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const inputs = inputsOr400(req, res, ASSOCIATION_BATCH_LIMITS.create);
    if (!inputs) return;
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const fromContact = pair.from === 'contacts';
    for (const input of inputs) {
      const fromId = idOf((input as { from?: unknown }).from);
      const toId = idOf((input as { to?: unknown }).to);
      if (!fromId || !toId)
        return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: every input needs from.id and to.id.');
      const missing = missingOf(pair, fromId, toId);
      if (missing) {
        errors.push(missing);
        continue;
      }
      associations.add(...sides(pair, fromId, toId), []);
      results.push({ from: { id: fromId }, to: { id: toId }, associationSpec: spec(fromContact) });
    }
    res.status(errors.length ? 207 : 200).json(batchBody(results, errors));
  });

  r.post('/crm/v4/associations/:from/:to/batch/create', (req, res) => {
    const batch = typedBatchOr400(req, res, associations);
    if (!batch) return;
    const { pair, parsed } = batch;
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const { fromId, toId, typeIds } of parsed) {
      const missing = missingOf(pair, fromId, toId);
      if (missing) {
        errors.push(missing);
        continue;
      }
      associations.add(...sides(pair, fromId, toId), typeIds);
      const labels =
        associations
          .associated(pair.from, fromId)
          .find((a) => a.id === toId)
          ?.types.flatMap((t) => (t.label ? [t.label] : [])) ?? [];
      results.push({
        fromObjectTypeId: TYPE_IDS[pair.from],
        fromObjectId: Number(fromId),
        toObjectTypeId: TYPE_IDS[pair.to],
        toObjectId: Number(toId),
        labels,
      });
    }
    res.status(errors.length ? 207 : 201).json(batchBody(results, errors));
  });

  r.get('/crm/v4/associations/:from/:to/labels', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    res.json({ results: associations.definitions(pair.from === 'contacts') });
  });

  r.post('/crm/v4/associations/:from/:to/labels', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const { label, name, inverseLabel } = (req.body ?? {}) as {
      label?: unknown;
      name?: unknown;
      inverseLabel?: unknown;
    };
    if (typeof label !== 'string' || !label.trim() || label.length > 100)
      return sendError(res, 400, 'VALIDATION_ERROR', 'label is required: text of 1 to 100 characters.');
    if (typeof name !== 'string' || !/^[a-z][a-z0-9_]{0,99}$/.test(name))
      return sendError(
        res,
        400,
        'VALIDATION_ERROR',
        'name is required: lower-case letters, digits and underscores, starting with a letter.',
      );
    if (inverseLabel !== undefined && typeof inverseLabel !== 'string')
      return sendError(res, 400, 'VALIDATION_ERROR', 'inverseLabel must be text.');
    if (associations.labelNamed(name))
      return sendError(res, 409, 'CONFLICT', `An association label named ${name} already exists.`);
    const defined = associations.defineLabel(label.trim(), name);
    const [forward, inverse] =
      pair.from === 'contacts'
        ? [defined.contactToCompany, defined.companyToContact]
        : [defined.companyToContact, defined.contactToCompany];
    res.json({
      results: [
        { category: 'USER_DEFINED', typeId: forward, label: defined.label },
        { category: 'USER_DEFINED', typeId: inverse, label: defined.label },
      ],
    });
  });

  r.post('/crm/v4/associations/:from/:to/batch/labels/archive', (req, res) => {
    const batch = typedBatchOr400(req, res, associations);
    if (!batch) return;
    const { pair, parsed } = batch;
    for (const { fromId, toId, typeIds } of parsed) associations.removeTypes(...sides(pair, fromId, toId), typeIds);
    res.status(204).end();
  });

  r.post('/crm/v4/associations/:from/:to/batch/read', (req, res) => {
    const pair = pairOr400(req, res);
    if (!pair) return;
    const inputs = inputsOr400(req, res, ASSOCIATION_BATCH_LIMITS.read);
    if (!inputs) return;
    const results: unknown[] = [];
    const missing: string[] = [];
    for (const input of inputs) {
      const id = idOf(input);
      if (!id) return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: every input needs an id.');
      if (!exists(pair.from, id)) {
        missing.push(id);
        continue;
      }
      const to = associations
        .associated(pair.from, id)
        .map((a) => ({ toObjectId: Number(a.id), associationTypes: a.types }));
      // HubSpot leaves out an object with no associations of the asked type.
      if (to.length) results.push({ from: { id }, to });
    }
    const errors = missing.length ? [notFound(pair.from, missing)] : [];
    res.status(errors.length ? 207 : 200).json(batchBody(results, errors));
  });

  return r;
}
