/**
 * HubSpot's answers as its published API descriptions define them, for the routes crm-enrich calls and
 * a user reads back: written here in zod from a reading of the descriptions (objects and properties
 * v3, associations and association labels v4, lists v3, account info v3, workflow actions v4, and their
 * 2026-09 counterparts). Required fields are required, types are checked, fields HubSpot may add are let
 * through. Three leniencies follow what HubSpot answers rather than what it describes: a requested
 * property with no value comes as null (described as text before 2026-09), v4 association results give
 * object ids as numbers (described as text), and the unlabelled association type has a null label.
 */
import { z } from 'zod';
import { isDateBased, type HubspotApiPaths, type HubspotApiVersion } from '../../connectors/hubspot/api-version.js';

const DateTime = z.iso.datetime({ offset: true });
const Context = z.record(z.string(), z.array(z.string()));
/** A v4 association answer's object id: described as text, given as a number by HubSpot. */
const AssociationId = z.union([z.string(), z.number().int()]);
const BATCH_STATUS = z.enum(['CANCELED', 'COMPLETE', 'PENDING', 'PROCESSING']);
const CATEGORY = z.enum(['HUBSPOT_DEFINED', 'INTEGRATOR_DEFINED', 'USER_DEFINED', 'WORK']);

const ErrorDetail = z.looseObject({
  message: z.string(),
  code: z.string().optional(),
  context: Context.optional(),
  in: z.string().optional(),
  subCategory: z.string().optional(),
});

/** Every error answer (the descriptions' `default` response). */
export const ErrorAnswer = z.looseObject({
  message: z.string(),
  correlationId: z.uuid(),
  category: z.string(),
  subCategory: z.string().optional(),
  context: Context.optional(),
  errors: z.array(ErrorDetail).optional(),
  links: z.record(z.string(), z.string()).optional(),
});

/** One failed input of a batch. */
const StandardError = z.looseObject({
  status: z.string(),
  category: z.string(),
  message: z.string(),
  context: Context,
  errors: z.array(ErrorDetail),
  links: z.record(z.string(), z.string()),
  id: z.string().optional(),
});

const NextPage = z.looseObject({ after: z.string(), link: z.string().optional() });
const ForwardPaging = z.looseObject({ next: NextPage.optional() });

/** A list's definition (ListFetchResponse): by id, and by object type and name. */
const ListFetch = z.looseObject({
  list: z.looseObject({
    listId: z.string(),
    listVersion: z.number().int(),
    name: z.string(),
    objectTypeId: z.string(),
    processingStatus: z.string(),
    processingType: z.string(),
    createdAt: DateTime.optional(),
    updatedAt: DateTime.optional(),
  }),
});

const SimplePublicObject = z.looseObject({
  id: z.string(),
  properties: z.record(z.string(), z.string().nullable()),
  createdAt: DateTime,
  updatedAt: DateTime,
  archived: z.boolean(),
  archivedAt: DateTime.optional(),
});

/**
 * A batch answer. On the legacy paths a partial batch is a 207 and a 200/201 carries no errors; the
 * date-based descriptions put the errors in the success answer.
 */
function batch(item: z.ZodType, withErrors: boolean) {
  const shape = z.looseObject({
    status: BATCH_STATUS,
    results: z.array(item),
    startedAt: DateTime,
    completedAt: DateTime,
    requestedAt: DateTime.optional(),
    numErrors: z.number().int().optional(),
    errors: z.array(StandardError).optional(),
    links: z.record(z.string(), z.string()).optional(),
  });
  return withErrors ? shape : shape.refine((b) => !b.errors?.length, 'errors in a success answer of a legacy path');
}

const Option = z.looseObject({
  label: z.string(),
  value: z.string(),
  hidden: z.boolean(),
  displayOrder: z.number().int().optional(),
});

const Property = z.looseObject({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  fieldType: z.string(),
  groupName: z.string(),
  description: z.string(),
  options: z.array(Option),
  calculated: z.boolean().optional(),
  externalOptions: z.boolean().optional(),
  hasUniqueValue: z.boolean().optional(),
  hidden: z.boolean().optional(),
  hubspotDefined: z.boolean().optional(),
  formField: z.boolean().optional(),
  displayOrder: z.number().int().optional(),
  createdAt: DateTime.optional(),
  updatedAt: DateTime.optional(),
  modificationMetadata: z
    .looseObject({ archivable: z.boolean(), readOnlyDefinition: z.boolean(), readOnlyValue: z.boolean() })
    .optional(),
});

/** v3 describes `displayOrder` as required in a group; 2026-09 does not. */
const propertyGroup = (version: HubspotApiVersion) =>
  z.looseObject({
    name: z.string(),
    label: z.string(),
    archived: z.boolean(),
    displayOrder: isDateBased(version) ? z.number().int().optional() : z.number().int(),
  });

const AssociationSpec = z.looseObject({ associationCategory: CATEGORY, associationTypeId: z.number().int() });
const AssociationType = z.looseObject({
  category: CATEGORY,
  typeId: z.number().int(),
  label: z.string().nullable().optional(),
});
const LabelsBetweenObjectPair = z.looseObject({
  fromObjectTypeId: z.string(),
  fromObjectId: AssociationId,
  toObjectTypeId: z.string(),
  toObjectId: AssociationId,
  labels: z.array(z.string()),
});
const AssociatedObject = z.looseObject({ toObjectId: AssociationId, associationTypes: z.array(AssociationType) });
const DefaultAssociation = z.looseObject({
  from: z.looseObject({ id: z.string() }),
  to: z.looseObject({ id: z.string() }),
  associationSpec: AssociationSpec,
});

const PortalInformation = z.looseObject({
  portalId: z.number().int(),
  accountType: z.enum(['APP_DEVELOPER', 'DEVELOPER_TEST', 'SANDBOX', 'STANDARD']),
  timeZone: z.string(),
  companyCurrency: z.string(),
  additionalCurrencies: z.array(z.string()),
  utcOffset: z.string(),
  utcOffsetMilliseconds: z.number().int(),
  uiDomain: z.string(),
  dataHostingLocation: z.string(),
});

const ApiUsage = z.looseObject({
  name: z.string(),
  fetchStatus: z.enum(['CACHED', 'FAILURE', 'NOTFOUND', 'SUCCESS', 'TIMEOUT']),
  usageLimit: z.number().int(),
  currentUsage: z.number().int(),
  collectedAt: DateTime,
  resetsAt: DateTime.optional(),
});

/** No body: a 204. */
const Empty = z.undefined();

/** A route the descriptions define: method, path (a regular expression's source), and answer per status. */
export interface PublishedRoute {
  name: string;
  method: string;
  path: string;
  answers: Record<number, z.ZodType>;
}

const ANY = '[^/]+';
const RECORDS = '(contacts|companies|0-1|0-2)';

/** The routes of one API version: the success answers each describes (errors are all `ErrorAnswer`). */
export function publishedRoutes(version: HubspotApiVersion, p: HubspotApiPaths): PublishedRoute[] {
  const dated = isDateBased(version);
  // A partial batch: 207 on the legacy paths, the success status with its errors on the date-based ones.
  const partial = (ok: number, item: z.ZodType) =>
    dated ? { [ok]: batch(item, true) } : { [ok]: batch(item, false), 207: batch(item, true) };
  return [
    {
      name: 'batch read',
      method: 'POST',
      path: `${p.objects}/${ANY}/batch/read`,
      answers: partial(200, SimplePublicObject),
    },
    {
      name: 'batch create',
      method: 'POST',
      path: `${p.objects}/${ANY}/batch/create`,
      answers: partial(201, SimplePublicObject),
    },
    {
      name: 'batch update',
      method: 'POST',
      path: `${p.objects}/${ANY}/batch/update`,
      answers: partial(200, SimplePublicObject),
    },
    {
      name: 'search',
      method: 'POST',
      path: `${p.objects}/${ANY}/search`,
      answers: {
        200: z.looseObject({
          total: z.number().int(),
          results: z.array(SimplePublicObject),
          paging: ForwardPaging.optional(),
        }),
      },
    },
    {
      name: 'object associations',
      method: 'GET',
      path: `${p.objectAssociations}/${ANY}/${ANY}/associations/${ANY}`,
      answers: { 200: z.looseObject({ results: z.array(AssociatedObject), paging: ForwardPaging.optional() }) },
    },
    {
      name: 'default association',
      method: 'PUT',
      path: `${p.objectAssociations}/${ANY}/${ANY}/associations/default/${ANY}/${ANY}`,
      answers: { 200: batch(DefaultAssociation, true) },
    },
    {
      name: 'list page',
      method: 'GET',
      path: `${p.objects}/${ANY}`,
      answers: { 200: z.looseObject({ results: z.array(SimplePublicObject), paging: ForwardPaging.optional() }) },
    },
    { name: 'create', method: 'POST', path: `${p.objects}/${ANY}`, answers: { 201: SimplePublicObject } },
    { name: 'read', method: 'GET', path: `${p.objects}/${ANY}/${ANY}`, answers: { 200: SimplePublicObject } },
    { name: 'update', method: 'PATCH', path: `${p.objects}/${ANY}/${ANY}`, answers: { 200: SimplePublicObject } },
    {
      name: 'property groups create',
      method: 'POST',
      path: `${p.properties}/${ANY}/groups`,
      answers: { 201: propertyGroup(version) },
    },
    {
      name: 'properties',
      method: 'GET',
      path: `${p.properties}/${ANY}`,
      answers: { 200: z.looseObject({ results: z.array(Property) }) },
    },
    { name: 'property create', method: 'POST', path: `${p.properties}/${ANY}`, answers: { 201: Property } },
    {
      name: 'association batch create',
      method: 'POST',
      path: `${p.associations}/${ANY}/${ANY}/batch/create`,
      answers: partial(dated ? 200 : 201, LabelsBetweenObjectPair),
    },
    {
      name: 'association batch read',
      method: 'POST',
      path: `${p.associations}/${ANY}/${ANY}/batch/read`,
      answers: partial(200, z.looseObject({ from: z.looseObject({ id: z.string() }), to: z.array(AssociatedObject) })),
    },
    {
      name: 'association labels',
      method: 'GET',
      path: `${p.associations}/${ANY}/${ANY}/labels`,
      answers: { 200: z.looseObject({ results: z.array(AssociationType) }) },
    },
    {
      name: 'association label create',
      method: 'POST',
      path: `${p.associations}/${RECORDS}/${RECORDS}/labels`,
      answers: { 200: z.looseObject({ results: z.array(AssociationType) }) },
    },
    {
      name: 'list memberships',
      method: 'GET',
      path: `${p.lists}/${ANY}/memberships`,
      answers: {
        200: z.looseObject({
          results: z.array(z.looseObject({ recordId: z.string(), membershipTimestamp: DateTime })),
          paging: ForwardPaging.optional(),
          total: z.number().int().optional(),
        }),
      },
    },
    { name: 'list read', method: 'GET', path: `${p.lists}/${ANY}`, answers: { 200: ListFetch } },
    {
      name: 'list by name',
      method: 'GET',
      path: `${p.lists}/object-type-id/${ANY}/name/${ANY}`,
      answers: { 200: ListFetch },
    },
    { name: 'account details', method: 'GET', path: `${p.accountInfo}/details`, answers: { 200: PortalInformation } },
    {
      name: 'daily usage',
      method: 'GET',
      path: `${p.accountInfo}/api-usage/daily/private-apps`,
      answers: { 200: z.looseObject({ results: z.array(ApiUsage) }) },
    },
    {
      name: 'workflow callback',
      method: 'POST',
      path: `${p.actionCallbacks}/${ANY}/complete`,
      answers: { 204: Empty },
    },
  ];
}
