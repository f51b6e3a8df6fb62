/**
 * Properties and property groups, at their v3 and date-based paths.
 */
import { Router, type Request, type Response } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';
import { HUBSPOT_FIELD_TYPES, HUBSPOT_TYPES, type HubspotProperty } from '../property-wire.js';
import { objectTypeOf, type ObjectType, type SandboxObjectStore } from './object-store.js';
import { sendError, sendNotFound } from './wire-errors.js';

/** Field types HubSpot allows for each value type. */
const FIELD_TYPES_FOR: Record<string, string[]> = {
  string: ['text', 'textarea', 'html', 'file', 'phonenumber'],
  number: ['number', 'calculation_equation'],
  date: ['date'],
  datetime: ['date'],
  enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox'],
  bool: ['booleancheckbox'],
  phone_number: ['phonenumber'],
};

function typeOr400(req: Request, res: Response): ObjectType | undefined {
  const type = objectTypeOf(String(req.params.objectType));
  if (!type)
    sendError(res, 400, 'VALIDATION_ERROR', `Unable to infer object type from: ${String(req.params.objectType)}`);
  return type;
}

function propertyCreateProblem(
  body: Record<string, unknown>,
  store: SandboxObjectStore,
  type: ObjectType,
): string | undefined {
  for (const field of ['name', 'label', 'type', 'fieldType', 'groupName']) {
    if (typeof body[field] !== 'string' || body[field] === '') return `Missing required field "${field}"`;
  }
  const [name, valueType, fieldType, groupName] = [body.name, body.type, body.fieldType, body.groupName].map(
    String,
  ) as [string, string, string, string];
  if (!/^[a-z][a-z0-9_]*$/.test(name))
    return `Property name "${name}" must start with a letter and hold only lower-case letters, digits and underscores`;
  if (!(HUBSPOT_TYPES as readonly string[]).includes(valueType))
    return `Invalid type "${valueType}"; expected one of ${HUBSPOT_TYPES.join(', ')}`;
  if (!(HUBSPOT_FIELD_TYPES as readonly string[]).includes(fieldType)) return `Invalid fieldType "${fieldType}"`;
  if (!(FIELD_TYPES_FOR[valueType] ?? []).includes(fieldType))
    return `fieldType "${fieldType}" cannot be used with type "${valueType}"`;
  if (!store.groups[type].has(groupName)) return `Property group "${groupName}" does not exist`;
  if (
    valueType === 'enumeration' &&
    fieldType !== 'booleancheckbox' &&
    (!Array.isArray(body.options) || body.options.length === 0)
  ) {
    return 'An enumeration property needs at least one option';
  }
  return undefined;
}

export function schemaRoutes(store: SandboxObjectStore): Router {
  const r = Router();

  for (const version of HUBSPOT_API_VERSIONS) {
    const properties = HUBSPOT_API_PATHS[version].properties;
    r.get(`${properties}/:objectType`, (req, res) => {
      const type = typeOr400(req, res);
      if (type) res.json({ results: [...store.definitions[type].values()].filter((p) => !p.archived) });
    });

    r.get(`${properties}/:objectType/groups`, (req, res) => {
      const type = typeOr400(req, res);
      if (type) res.json({ results: [...store.groups[type].values()] });
    });

    r.post(`${properties}/:objectType/groups`, (req, res) => {
      const type = typeOr400(req, res);
      if (!type) return;
      const { name, label, displayOrder } = (req.body ?? {}) as {
        name?: unknown;
        label?: unknown;
        displayOrder?: unknown;
      };
      if (typeof name !== 'string' || typeof label !== 'string')
        return sendError(res, 400, 'VALIDATION_ERROR', 'A property group needs "name" and "label".');
      if (store.groups[type].has(name))
        return sendError(res, 409, 'OBJECT_ALREADY_EXISTS', `A property group named '${name}' already exists.`);
      const group = {
        name,
        label,
        displayOrder: typeof displayOrder === 'number' ? displayOrder : -1,
        archived: false,
      };
      store.groups[type].set(name, group);
      res.status(201).json(group);
    });

    r.get(`${properties}/:objectType/:name`, (req, res) => {
      const type = typeOr400(req, res);
      if (!type) return;
      const p = store.definitions[type].get(String(req.params.name));
      if (!p) return sendNotFound(res, `Property ${String(req.params.name)}`);
      res.json(p);
    });

    r.post(`${properties}/:objectType`, (req, res) => {
      const type = typeOr400(req, res);
      if (!type) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const problem = propertyCreateProblem(body, store, type);
      if (problem) return sendError(res, 400, 'VALIDATION_ERROR', problem);
      const name = String(body.name);
      if (store.definitions[type].has(name))
        return sendError(res, 409, 'OBJECT_ALREADY_EXISTS', `Property named '${name}' already exists.`);
      const at = new Date().toISOString();
      const options = Array.isArray(body.options)
        ? (body.options as {
            label: string;
            value: string;
            displayOrder?: number;
            hidden?: boolean;
            description?: string;
          }[])
        : [];
      const created: HubspotProperty = {
        updatedAt: at,
        createdAt: at,
        name,
        label: String(body.label),
        type: String(body.type),
        fieldType: String(body.fieldType),
        description: typeof body.description === 'string' ? body.description : '',
        groupName: String(body.groupName),
        options: options.map((o, i) => ({
          label: o.label,
          value: o.value,
          description: o.description ?? '',
          displayOrder: o.displayOrder ?? i,
          hidden: o.hidden ?? false,
        })),
        displayOrder: typeof body.displayOrder === 'number' ? body.displayOrder : -1,
        calculated: false,
        externalOptions: false,
        hasUniqueValue: body.hasUniqueValue === true,
        hidden: body.hidden === true,
        hubspotDefined: false,
        modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
        formField: body.formField === true,
      };
      store.definitions[type].set(name, created);
      res.status(201).json(created);
    });
  }

  return r;
}
