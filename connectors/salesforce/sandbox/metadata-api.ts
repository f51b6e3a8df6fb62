/**
 * The part of the Metadata API (SOAP, `POST /services/Soap/m/<version>`) that `mappings provision` uses,
 * as jsforce sends it (`conn.metadata.create/upsert/read`): createMetadata, upsertMetadata and
 * readMetadata for CustomField and PermissionSet. A field created here joins the org's describe once a
 * permission set assigned to the integration user grants it read access, as in Salesforce, where a field
 * created through the Metadata API is visible to nobody until field-level security says so.
 */
import express, { type Request, type Response, type Router } from 'express';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { isSandboxObjectType, type OrgData } from './org-data.js';
import type { ApiUsage } from './rest-routes.js';
import { describeField, type DescribeField } from '../standard-fields.js';

export interface MetadataContext {
  org: OrgData;
  usage: ApiUsage;
  isValidToken: (token: string | undefined) => boolean;
  /** Permission sets assigned to the integration user: their field permissions decide what it sees. */
  assignedPermissionSets: string[];
  maxVersion: number;
}

type Members = Record<string, unknown>;
interface MetadataError {
  statusCode: string;
  message: string;
  fields?: string;
}
interface SaveOutcome {
  fullName: string;
  success: boolean;
  created?: boolean;
  errors?: MetadataError[];
}

/** Salesforce's limit for create, update and upsert: ten components per call. */
const MAX_PER_CALL = 10;
const ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const METADATA_NS = 'http://soap.sforce.com/2006/04/metadata';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => ['metadata', 'fullNames', 'fieldPermissions', 'objectPermissions', 'value'].includes(name),
});
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true });

function envelope(body: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${ENVELOPE_NS}" xmlns="${METADATA_NS}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`
  );
}

function fault(res: Response, code: string, message: string): void {
  res
    .status(500)
    .type('text/xml; charset=utf-8')
    .send(
      envelope(builder.build({ 'soapenv:Fault': { faultcode: `sf:${code}`, faultstring: `${code}: ${message}` } })),
    );
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim() : undefined);
const flag = (v: unknown): boolean => text(v) === 'true';
const whole = (v: unknown): number | undefined =>
  text(v) !== undefined && /^\d+$/.test(text(v)!) ? Number(text(v)) : undefined;

/** Field API names: a letter, then letters, digits and single underscores, at most 40 characters, then `__c`. */
const FIELD_NAME = /^[A-Za-z](?:[A-Za-z0-9]|_(?!_)){0,39}__c$/;

function fieldError(fullName: string, message: string, statusCode = 'FIELD_INTEGRITY_EXCEPTION'): SaveOutcome {
  return { fullName, success: false, errors: [{ statusCode, message, fields: fullName }] };
}

/** The describe entry a CustomField becomes, or the reason Salesforce refuses it. */
function describeOf(name: string, field: Members): DescribeField | string {
  const label = text(field.label);
  if (!label) return 'Field label: You must enter a value';
  if (label.length > 40) return `Field label: data value too large (max length=40): ${label}`;
  const base = { name, label, custom: true, nillable: true };
  switch (text(field.type)) {
    case 'Text': {
      const length = whole(field.length);
      if (!length || length > 255) return 'Length: the value must be between 1 and 255';
      return describeField({ ...base, type: 'string', length });
    }
    case 'LongTextArea': {
      const length = whole(field.length);
      if (!length || length < 256 || length > 131_072) return 'Length: the value must be between 256 and 131,072';
      if (!whole(field.visibleLines)) return 'Visible Lines: You must enter a value';
      return describeField({ ...base, type: 'textarea', length });
    }
    case 'Number': {
      const precision = whole(field.precision);
      const scale = whole(field.scale) ?? 0;
      if (!precision || precision > 18 || scale > precision)
        return 'Length: the sum of length and decimal places must be an integer less than or equal to 18';
      return describeField({ ...base, type: 'double', precision, scale, digits: 0 });
    }
    case 'Checkbox':
      if (text(field.defaultValue) !== 'true' && text(field.defaultValue) !== 'false')
        return 'Default Value: You must set a default value for a checkbox';
      return describeField({ ...base, type: 'boolean', nillable: false });
    case 'Date':
      return describeField({ ...base, type: 'date' });
    case 'DateTime':
      return describeField({ ...base, type: 'datetime' });
    case 'Phone':
      return describeField({ ...base, type: 'phone', length: 40 });
    case 'Email':
      return describeField({ ...base, type: 'email', length: 80 });
    case 'Url':
      return describeField({ ...base, type: 'url', length: 255 });
    case 'Picklist': {
      const valueSet = field.valueSet as Members | undefined;
      const values = ((valueSet?.valueSetDefinition as Members | undefined)?.value ?? []) as Members[];
      if (values.length === 0) return 'Values: You must enter at least one picklist value';
      const picklistValues = values.map((v) => ({
        active: true,
        label: text(v.label) ?? text(v.fullName) ?? '',
        value: text(v.fullName) ?? '',
        defaultValue: flag(v.default),
      }));
      return describeField({
        ...base,
        type: 'picklist',
        picklistValues,
        restrictedPicklist: flag(valueSet?.restricted),
      });
    }
    default:
      return `Data Type: '${text(field.type) ?? ''}' is not a valid value for the enum 'FieldType'`;
  }
}

function splitFieldName(fullName: string): { object: string; name: string } | undefined {
  const [object, name, ...rest] = fullName.split('.');
  return object && name && rest.length === 0 ? { object, name } : undefined;
}

export function metadataRoutes(ctx: MetadataContext): Router {
  const router = express.Router({ mergeParams: true });
  /** CustomField metadata as created, by `Object.Field__c` (lower case), for readMetadata. */
  const customFields = new Map<string, Members>();
  const permissionSets = new Map<string, Members & { fullName: string; fieldPermissions: Members[] }>();

  /** Applies an assigned permission set's field permissions to what the integration user sees. */
  function applyGrants(): void {
    for (const name of ctx.assignedPermissionSets) {
      for (const grant of permissionSets.get(name.toLowerCase())?.fieldPermissions ?? []) {
        const target = splitFieldName(text(grant.field) ?? '');
        if (!target || !isSandboxObjectType(target.object)) continue;
        ctx.org.grantField(target.object, target.name, {
          readable: flag(grant.readable),
          editable: flag(grant.editable),
        });
      }
    }
  }

  function createField(field: Members, upsert: boolean): SaveOutcome {
    const fullName = text(field.fullName) ?? '';
    const target = splitFieldName(fullName);
    if (!target)
      return fieldError(fullName, `Must specify a name in the correct format: Object.Field__c, got '${fullName}'`);
    if (!isSandboxObjectType(target.object))
      return fieldError(fullName, `Cannot find an object named ${target.object}`, 'INVALID_CROSS_REFERENCE_KEY');
    if (!FIELD_NAME.test(target.name)) {
      return fieldError(
        fullName,
        'The Field Name can only contain underscores and alphanumeric characters, begin with a letter, ' +
          'not include spaces or two consecutive underscores, and be at most 40 characters before __c.',
      );
    }
    if (ctx.org.hasField(target.object, target.name)) {
      // Upsert of an existing field changes its definition; crm-enrich never asks for that,
      // so the sandbox keeps the field as it is.
      if (upsert) return { fullName, success: true, created: false };
      return fieldError(
        fullName,
        `There is already a field named ${target.name} on ${target.object}.`,
        'DUPLICATE_DEVELOPER_NAME',
      );
    }
    const described = describeOf(target.name, field);
    if (typeof described === 'string') return fieldError(fullName, described);
    ctx.org.addField(target.object, described);
    customFields.set(fullName.toLowerCase(), field);
    applyGrants();
    return { fullName, success: true, ...(upsert ? { created: true } : {}) };
  }

  function savePermissionSet(set: Members, upsert: boolean): SaveOutcome {
    const fullName = text(set.fullName) ?? '';
    if (!/^[A-Za-z][A-Za-z0-9_]{0,79}$/.test(fullName))
      return fieldError(fullName, `Invalid permission set name '${fullName}'`);
    const known = permissionSets.get(fullName.toLowerCase());
    if (known && !upsert)
      return fieldError(fullName, `There is already a permission set named ${fullName}.`, 'DUPLICATE_DEVELOPER_NAME');
    if (!known && !text(set.label))
      return fieldError(fullName, 'Label: You must enter a value', 'REQUIRED_FIELD_MISSING');
    const grants = (set.fieldPermissions ?? []) as Members[];
    for (const grant of grants) {
      const target = splitFieldName(text(grant.field) ?? '');
      if (!target || !isSandboxObjectType(target.object) || !ctx.org.hasField(target.object, target.name)) {
        return fieldError(
          fullName,
          `In field: field - no CustomField named ${text(grant.field) ?? ''} found`,
          'INVALID_CROSS_REFERENCE_KEY',
        );
      }
      if (flag(grant.editable) && !flag(grant.readable))
        return fieldError(fullName, `${text(grant.field)}: an editable field must also be readable`);
    }
    // Salesforce changes only the permissions a permission set deploy names; the others stay as they were.
    const byField = new Map((known?.fieldPermissions ?? []).map((g) => [(text(g.field) ?? '').toLowerCase(), g]));
    for (const grant of grants) byField.set((text(grant.field) ?? '').toLowerCase(), grant);
    permissionSets.set(fullName.toLowerCase(), { ...known, ...set, fullName, fieldPermissions: [...byField.values()] });
    applyGrants();
    return { fullName, success: true, ...(upsert ? { created: !known } : {}) };
  }

  function save(items: Members[], upsert: boolean): SaveOutcome[] {
    return items.map((item) => {
      const type = text(item['@_type'])?.replace(/^\w+:/, '');
      if (type === 'CustomField') return createField(item, upsert);
      if (type === 'PermissionSet') return savePermissionSet(item, upsert);
      return fieldError(
        text(item.fullName) ?? '',
        `The sandbox does not implement metadata type '${type ?? ''}'`,
        'UNKNOWN_EXCEPTION',
      );
    });
  }

  function read(type: string, fullNames: string[]): Members[] {
    return fullNames.map((name) => {
      const found =
        type === 'CustomField'
          ? customFields.get(name.toLowerCase())
          : type === 'PermissionSet'
            ? permissionSets.get(name.toLowerCase())
            : undefined;
      // Salesforce answers a name it does not know with an empty record rather than an error.
      if (!found) return { '@_xsi:type': type };
      const { '@_type': _type, ...members } = found;
      return { '@_xsi:type': type, ...members };
    });
  }

  router.post('/', express.text({ type: () => true, limit: '10mb' }), (req: Request, res: Response) => {
    const version = Number(req.params.version);
    if (!Number.isFinite(version) || version < 31 || version > ctx.maxVersion)
      return fault(
        res,
        'UNSUPPORTED_API_VERSION',
        `Invalid Api version specified on URL: ${String(req.params.version)}`,
      );
    let doc: Members;
    try {
      doc = parser.parse(typeof req.body === 'string' ? req.body : '') as Members;
    } catch {
      return fault(res, 'INVALID_XML', 'The request is not well-formed XML');
    }
    const envelopeMembers = doc.Envelope as Members | undefined;
    const session = ((envelopeMembers?.Header as Members | undefined)?.SessionHeader as Members | undefined)?.sessionId;
    if (!ctx.isValidToken(text(session)))
      return fault(res, 'INVALID_SESSION_ID', 'Invalid Session ID found in SessionHeader: Illegal Session');
    const body = (envelopeMembers?.Body ?? {}) as Members;
    const method = Object.keys(body).find((k) => !k.startsWith('@_'));
    const args = (method ? body[method] : undefined) as Members | undefined;
    ctx.usage.used++;
    ctx.usage.byOperation[`metadata.${method ?? 'unknown'}`] =
      (ctx.usage.byOperation[`metadata.${method ?? 'unknown'}`] ?? 0) + 1;

    let result: unknown;
    if (method === 'createMetadata' || method === 'upsertMetadata') {
      const items = (args?.metadata ?? []) as Members[];
      if (items.length > MAX_PER_CALL)
        return fault(
          res,
          'EXCEEDED_ID_LIMIT',
          `record limit reached. cannot submit more than ${MAX_PER_CALL} records in this operation`,
        );
      result = save(items, method === 'upsertMetadata');
    } else if (method === 'readMetadata') {
      const fullNames = ((args?.fullNames ?? []) as unknown[]).map((n) => text(n) ?? '');
      if (fullNames.length > MAX_PER_CALL)
        return fault(
          res,
          'EXCEEDED_ID_LIMIT',
          `record limit reached. cannot submit more than ${MAX_PER_CALL} records in this operation`,
        );
      result = { records: read(text(args?.type) ?? '', fullNames) };
    } else {
      return fault(res, 'INVALID_OPERATION', `The sandbox does not implement ${method ?? 'this operation'}`);
    }
    res.type('text/xml; charset=utf-8').send(envelope(builder.build({ [`${method}Response`]: { result } })));
  });
  return router;
}
