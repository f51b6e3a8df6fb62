/**
 * The legacy API version (objects and properties v3, associations v4, lists v3, account info v3,
 * workflow callbacks v4) through the official client's typed methods. Their answers come back as the
 * client's model objects; a JSON round trip gives HubSpot's wire form, as the date-based client has it.
 */
import type { Client } from '@hubspot/api-client';
import * as objectModels from '@hubspot/api-client/lib/codegen/crm/objects/models/all.js';
import type { HubspotApi, ObjectInput } from './hubspot-api.js';

const { AssociationSpecAssociationCategoryEnum: Category } = objectModels;

/** A record to create in the client's model, whose association categories are the client's enum. */
const toSdk = ({ properties, associations }: ObjectInput) => ({
  properties,
  associations: associations.map(({ to, types }) => ({
    to,
    types: types.map(({ associationCategory, associationTypeId }) => ({
      associationCategory: associationCategory === 'USER_DEFINED' ? Category.UserDefined : Category.HubspotDefined,
      associationTypeId,
    })),
  })),
});

type Sdk = () => Promise<Client>;
type PropertyBody = Parameters<Client['crm']['properties']['coreApi']['create']>[1];
type AssociationsBody = Parameters<Client['crm']['associations']['v4']['batchApi']['create']>[2];

const wire = (answer: unknown): unknown => (answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)));

export function sdkApi(sdk: Sdk): HubspotApi {
  return {
    version: 'v3',
    batchRead: async (type, ids, properties) =>
      wire(
        await (
          await sdk()
        ).crm.objects.batchApi.read(
          type,
          { inputs: ids.map((id) => ({ id })), properties, propertiesWithHistory: [] },
          false,
        ),
      ),
    batchCreate: async (type, inputs) =>
      wire(await (await sdk()).crm.objects.batchApi.create(type, { inputs: inputs.map(toSdk) })),
    batchUpdate: async (type, inputs) => wire(await (await sdk()).crm.objects.batchApi.update(type, { inputs })),
    search: async (type, body) => wire(await (await sdk()).crm.objects.searchApi.doSearch(type, body)),
    page: async (type, limit, after, properties) =>
      wire(await (await sdk()).crm.objects.basicApi.getPage(type, limit, after, properties)),
    read: async (type, id, properties) => wire(await (await sdk()).crm.objects.basicApi.getById(type, id, properties)),
    create: async (type, input) => wire(await (await sdk()).crm.objects.basicApi.create(type, toSdk(input))),
    update: async (type, id, properties) =>
      wire(await (await sdk()).crm.objects.basicApi.update(type, id, { properties })),
    properties: async (type) => wire(await (await sdk()).crm.properties.coreApi.getAll(type, false)),
    createProperty: async (type, create) =>
      wire(await (await sdk()).crm.properties.coreApi.create(type, create as unknown as PropertyBody)),
    createPropertyGroup: async (type, group) => wire(await (await sdk()).crm.properties.groupsApi.create(type, group)),
    createAssociations: async (from, to, inputs) =>
      wire(
        await (
          await sdk()
        ).crm.associations.v4.batchApi.create(from, to, {
          // The client's model names the pair's first side `_from`.
          inputs: inputs.map(({ from: _from, ...rest }) => ({
            _from,
            ...rest,
          })) as unknown as AssociationsBody['inputs'],
        }),
      ),
    associationLabels: async (from, to) =>
      wire(await (await sdk()).crm.associations.v4.schema.definitionsApi.getAll(from, to)),
    createAssociationLabel: async (from, to, label) =>
      wire(await (await sdk()).crm.associations.v4.schema.definitionsApi.create(from, to, label)),
    listMembers: async (listId, after, limit) =>
      wire(await (await sdk()).crm.lists.membershipsApi.getPage(listId, after, undefined, limit)),
    listById: async (listId) => wire(await (await sdk()).crm.lists.listsApi.getById(listId, false)),
    listByName: async (objectTypeId, name) =>
      wire(await (await sdk()).crm.lists.listsApi.getByName(name, objectTypeId, false)),
    accountDetails: async () =>
      (await (await sdk()).apiRequest({ method: 'GET', path: '/account-info/v3/details' })).json(),
    dailyUsage: async () =>
      (await (await sdk()).apiRequest({ method: 'GET', path: '/account-info/v3/api-usage/daily/private-apps' })).json(),
    async completeCallback(callbackId, outputFields) {
      // The client types the values as text but sends them as given.
      await (
        await sdk()
      ).automation.actions.callbacksApi.complete(callbackId, { outputFields: outputFields as Record<string, string> });
    },
  };
}
