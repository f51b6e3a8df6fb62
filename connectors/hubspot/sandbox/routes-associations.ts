/**
 * Associations, at their v4 and date-based paths: the single default and labelled PUTs, the list of one
 * object's associations, the batch endpoints (associate default, create with types, archive labels,
 * read) and the labels (association definitions) of a pair, with HubSpot's input limits and the errors
 * of inputs that name missing objects in the answer. Contacts with companies carry HubSpot's types and
 * user-defined labels from each side (contact to company 279 / primary 1, company to contact 280 / 2);
 * tasks and notes with contacts and companies carry their one HubSpot-defined type each way (task to
 * contact 204, contact to task 203, ...), so a task is found through its contact and the contact
 * through the task.
 */
import { Router, type Request, type Response } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS, isDateBased } from '../api-version.js';
import { activityPair, activityTypeId, type AnyObjectType } from './activity-associations.js';
import type { SandboxAssociations } from './associations.js';
import { batchBody, batchStatus, standardError } from './batch-answer.js';
import { objectTypeOf, type SandboxObjectStore } from './object-store.js';
import type { SandboxActivities } from './routes-activities.js';
import { sendError, sendNotFound } from './wire-errors.js';

/** HubSpot's input limits of the v4 association batch endpoints. */
export const ASSOCIATION_BATCH_LIMITS = { create: 2_000, read: 1_000 } as const;

const TYPE_IDS: Record<AnyObjectType, string> = { contacts: '0-1', companies: '0-2', tasks: '0-27', notes: '0-46' };

/** Path segment to object type: plural, singular or type id, as HubSpot takes them. */
function anyTypeOf(segment: string): AnyObjectType | undefined {
  const s = segment.toLowerCase();
  if (s === 'tasks' || s === 'task' || s === '0-27') return 'tasks';
  if (s === 'notes' || s === 'note' || s === '0-46') return 'notes';
  return objectTypeOf(s);
}

/** A pair the sandbox associates: contacts with companies (`records`), or an activity with one of them. */
interface Pair {
  from: AnyObjectType;
  to: AnyObjectType;
  records: boolean;
}

function pairOr400(req: Request, res: Response): Pair | undefined {
  const from = anyTypeOf(String(req.params.from));
  const to = anyTypeOf(String(req.params.to));
  const records = (from === 'contacts' && to === 'companies') || (from === 'companies' && to === 'contacts');
  if (!from || !to || (!records && !activityPair(from, to))) {
    sendError(
      res,
      400,
      'VALIDATION_ERROR',
      'The sandbox portal associates contacts with companies, and tasks and notes with contacts and companies; ' +
        `got ${String(req.params.from)} to ${String(req.params.to)}.`,
    );
    return undefined;
  }
  return { from, to, records };
}

/** Contact id and company id of a contact-company pair given in either direction. */
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

const notFound = (type: AnyObjectType, ids: string[]) =>
  standardError('OBJECT_NOT_FOUND', `No ${type} with ids ${ids.join(', ')}.`, { ids });

export function associationRoutes(store: SandboxObjectStore, activities: SandboxActivities): Router {
  const r = Router();
  const associations: SandboxAssociations = store.associations;
  const exists = (type: AnyObjectType, id: string) =>
    type === 'tasks' || type === 'notes' ? activities.exists(type, id) : store.get(type, id) !== undefined;
  /** The not-found error of an input whose objects do not both exist. */
  const missingOf = (pair: Pair, fromId: string, toId: string) => {
    if (!exists(pair.from, fromId)) return notFound(pair.from, [fromId]);
    if (!exists(pair.to, toId)) return notFound(pair.to, [toId]);
    return undefined;
  };
  /** Whether `typeId` names a type of this pair from its `from` side. */
  const knownType = (pair: Pair, typeId: number) =>
    pair.records
      ? associations.knownType(pair.from === 'contacts', typeId)
      : typeId === activityTypeId(pair.from, pair.to);
  /** The default (unlabelled) type from `from` to `to`. */
  const defaultType = (from: AnyObjectType, to: AnyObjectType) =>
    activityTypeId(from, to) ?? (from === 'contacts' ? 279 : 280);
  const spec = (from: AnyObjectType, to: AnyObjectType) => ({
    associationCategory: 'HUBSPOT_DEFINED',
    associationTypeId: defaultType(from, to),
  });
  /** Associates a pair with its types (from the pair's `from` side; the default type for none). */
  const associate = (pair: Pair, fromId: string, toId: string, typeIds: number[]) => {
    if (!pair.records) return activities.associations.add(pair.from, fromId, pair.to, toId);
    const contactSide = pair.from === 'contacts' ? typeIds : typeIds.map((t) => associations.toContactSide(t));
    associations.add(...sides(pair, fromId, toId), contactSide);
  };
  const associated = (pair: Pair, fromId: string) =>
    pair.records
      ? associations.associated(pair.from as 'contacts' | 'companies', fromId)
      : activities.associations.associated(pair.from, fromId, pair.to);
  const labelsOf = (pair: Pair, fromId: string, toId: string) =>
    associated(pair, fromId)
      .find((a) => a.id === toId)
      ?.types.flatMap((t) => (t.label ? [t.label] : [])) ?? [];
  /** The answer of a labelled association: HubSpot gives the ids as numbers here. */
  const labelled = (pair: Pair, fromId: string, toId: string) => ({
    fromObjectTypeId: TYPE_IDS[pair.from],
    fromObjectId: Number(fromId),
    toObjectTypeId: TYPE_IDS[pair.to],
    toObjectId: Number(toId),
    labels: labelsOf(pair, fromId, toId),
  });

  /**
   * The pair and inputs of a batch that names association types (create, label archive): each input's
   * ids and type ids, or a 400 sent when the pair or the batch is not one, an input lacks an id or a
   * type, or names a type this pair does not have.
   */
  function typedBatchOr400(
    req: Request,
    res: Response,
  ): { pair: Pair; parsed: { fromId: string; toId: string; typeIds: number[] }[] } | undefined {
    const pair = pairOr400(req, res);
    if (!pair) return undefined;
    const inputs = inputsOr400(req, res, ASSOCIATION_BATCH_LIMITS.create);
    if (!inputs) return undefined;
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
      const unknown = typeIds.filter((t) => !knownType(pair, t));
      if (unknown.length) {
        sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Unknown association type ids from ${pair.from} to ${pair.to}: ${unknown.join(', ')}.`,
        );
        return undefined;
      }
      parsed.push({ fromId, toId, typeIds });
    }
    return { pair, parsed };
  }

  for (const version of HUBSPOT_API_VERSIONS) {
    const { objectAssociations, associations: batchPrefix } = HUBSPOT_API_PATHS[version];
    const objects = `${objectAssociations}/:from/:fromId/associations`;
    const pairs = `${batchPrefix}/:from/:to`;

    r.put(`${objects}/default/:to/:toId`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      const fromId = String(req.params.fromId);
      const toId = String(req.params.toId);
      if (!exists(pair.from, fromId)) return sendNotFound(res, `${pair.from} ${fromId}`);
      if (!exists(pair.to, toId)) return sendNotFound(res, `${pair.to} ${toId}`);
      associate(pair, fromId, toId, []);
      res.json(
        batchBody(
          [
            { from: { id: fromId }, to: { id: toId }, associationSpec: spec(pair.from, pair.to) },
            { from: { id: toId }, to: { id: fromId }, associationSpec: spec(pair.to, pair.from) },
          ],
          [],
        ),
      );
    });

    r.put(`${objects}/:to/:toId`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      const fromId = String(req.params.fromId);
      const toId = String(req.params.toId);
      const body: unknown = req.body;
      if (!Array.isArray(body) || body.length === 0)
        return sendError(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON: expected an array of association specs.');
      const typeIds = body.map((s) => Number((s as { associationTypeId?: unknown }).associationTypeId));
      const unknown = typeIds.filter((t) => !knownType(pair, t));
      if (unknown.length)
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Unknown association type ids from ${pair.from} to ${pair.to}: ${unknown.join(', ')}.`,
        );
      if (!exists(pair.from, fromId)) return sendNotFound(res, `${pair.from} ${fromId}`);
      if (!exists(pair.to, toId)) return sendNotFound(res, `${pair.to} ${toId}`);
      associate(pair, fromId, toId, typeIds);
      res.status(201).json(labelled(pair, fromId, toId));
    });

    r.get(`${objects}/:to`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      const results = associated(pair, String(req.params.fromId)).map((a) => ({
        toObjectId: Number(a.id),
        associationTypes: a.types,
      }));
      res.json({ results });
    });

    r.post(`${pairs}/batch/associate/default`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      const inputs = inputsOr400(req, res, ASSOCIATION_BATCH_LIMITS.create);
      if (!inputs) return;
      const results: unknown[] = [];
      const errors = [];
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
        associate(pair, fromId, toId, []);
        results.push({ from: { id: fromId }, to: { id: toId }, associationSpec: spec(pair.from, pair.to) });
      }
      // HubSpot describes this endpoint's answer as 200 only, in every version: errors go in the body.
      res.json(batchBody(results, errors));
    });

    r.post(`${pairs}/batch/create`, (req: Request, res: Response) => {
      const batch = typedBatchOr400(req, res);
      if (!batch) return;
      const { pair, parsed } = batch;
      const results: unknown[] = [];
      const errors = [];
      for (const { fromId, toId, typeIds } of parsed) {
        const missing = missingOf(pair, fromId, toId);
        if (missing) {
          errors.push(missing);
          continue;
        }
        associate(pair, fromId, toId, typeIds);
        results.push(labelled(pair, fromId, toId));
      }
      res.status(batchStatus(version, isDateBased(version) ? 200 : 201, errors)).json(batchBody(results, errors));
    });

    r.get(`${pairs}/labels`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      res.json({
        results: pair.records
          ? associations.definitions(pair.from === 'contacts')
          : [{ category: 'HUBSPOT_DEFINED', typeId: defaultType(pair.from, pair.to), label: null }],
      });
    });

    r.post(`${pairs}/labels`, (req: Request, res: Response) => {
      const pair = pairOr400(req, res);
      if (!pair) return;
      if (!pair.records)
        return sendError(res, 400, 'VALIDATION_ERROR', 'The sandbox keeps labels between contacts and companies only.');
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

    r.post(`${pairs}/batch/labels/archive`, (req: Request, res: Response) => {
      const batch = typedBatchOr400(req, res);
      if (!batch) return;
      const { pair, parsed } = batch;
      if (!pair.records)
        return sendError(res, 400, 'VALIDATION_ERROR', 'The sandbox keeps labels between contacts and companies only.');
      for (const { fromId, toId, typeIds } of parsed) {
        const contactSide = pair.from === 'contacts' ? typeIds : typeIds.map((t) => associations.toContactSide(t));
        associations.removeTypes(...sides(pair, fromId, toId), contactSide);
      }
      // The legacy path answers 204; the date-based one describes a batch answer with no results.
      if (isDateBased(version)) res.json(batchBody([], []));
      else res.status(204).end();
    });

    r.post(`${pairs}/batch/read`, (req: Request, res: Response) => {
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
        const to = associated(pair, id).map((a) => ({ toObjectId: Number(a.id), associationTypes: a.types }));
        // HubSpot leaves out an object with no associations of the asked type.
        if (to.length) results.push({ from: { id }, to });
      }
      const errors = missing.length ? [notFound(pair.from, missing)] : [];
      res.status(batchStatus(version, 200, errors)).json(batchBody(results, errors));
    });
  }

  return r;
}
