/**
 * A date-based API version (2026-09) through the official client's generic request, the only way the
 * client reaches those paths: each call is built from the version's path table, and an answer other
 * than 2xx is thrown as the client's own ApiException, so the request runner reads it as it reads the
 * typed methods' failures. The bodies are the legacy ones; the callback also sends `typedOutputs`,
 * which the date-based description requires.
 */
import type { Client } from '@hubspot/api-client';
import { ApiException } from '@hubspot/api-client/lib/codegen/crm/objects/apis/exception.js';
import { HUBSPOT_API_PATHS, type HubspotApiVersion } from './api-version.js';
import type { HubspotApi } from './hubspot-api.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

export function datedApi(version: HubspotApiVersion, sdk: () => Promise<Client>): HubspotApi {
  const paths = HUBSPOT_API_PATHS[version];
  const at = (...segments: string[]) => segments.map(encodeURIComponent).join('/');

  async function call(method: Method, path: string, body?: unknown, qs?: Record<string, string>): Promise<unknown> {
    const res = await (await sdk()).apiRequest({ method, path, ...(body === undefined ? {} : { body }), qs });
    const text = await res.text();
    if (!res.ok) throw new ApiException(res.status, `HTTP ${res.status}`, text, Object.fromEntries(res.headers));
    return text ? (JSON.parse(text) as unknown) : undefined;
  }

  const objects = (type: string) => `${paths.objects}/${at(type)}`;
  const query = (entries: Record<string, string | undefined>) =>
    Object.fromEntries(Object.entries(entries).filter((e): e is [string, string] => e[1] !== undefined));

  return {
    version,
    batchRead: (type, ids, properties) =>
      call('POST', `${objects(type)}/batch/read`, {
        inputs: ids.map((id) => ({ id })),
        properties,
        propertiesWithHistory: [],
      }),
    batchCreate: (type, inputs) => call('POST', `${objects(type)}/batch/create`, { inputs }),
    batchUpdate: (type, inputs) => call('POST', `${objects(type)}/batch/update`, { inputs }),
    search: (type, body) => call('POST', `${objects(type)}/search`, body),
    page: (type, limit, after, properties) =>
      call('GET', objects(type), undefined, query({ limit: String(limit), after, properties: properties?.join(',') })),
    read: (type, id, properties) =>
      call('GET', `${objects(type)}/${at(id)}`, undefined, query({ properties: properties.join(',') })),
    create: (type, input) => call('POST', objects(type), input),
    update: (type, id, properties) => call('PATCH', `${objects(type)}/${at(id)}`, { properties }),
    properties: (type) => call('GET', `${paths.properties}/${at(type)}`, undefined, { archived: 'false' }),
    createProperty: (type, create) => call('POST', `${paths.properties}/${at(type)}`, create),
    createPropertyGroup: (type, group) => call('POST', `${paths.properties}/${at(type)}/groups`, group),
    createAssociations: (from, to, inputs) =>
      call('POST', `${paths.associations}/${at(from, to)}/batch/create`, { inputs }),
    associationLabels: (from, to) => call('GET', `${paths.associations}/${at(from, to)}/labels`),
    createAssociationLabel: (from, to, label) => call('POST', `${paths.associations}/${at(from, to)}/labels`, label),
    listMembers: (listId, after, limit) =>
      call('GET', `${paths.lists}/${at(listId)}/memberships`, undefined, query({ after, limit: String(limit) })),
    listById: (listId) => call('GET', `${paths.lists}/${at(listId)}`),
    listByName: (objectTypeId, name) =>
      call('GET', `${paths.lists}/object-type-id/${at(objectTypeId)}/name/${at(name)}`),
    accountDetails: () => call('GET', `${paths.accountInfo}/details`),
    dailyUsage: () => call('GET', `${paths.accountInfo}/api-usage/daily/private-apps`),
    async completeCallback(callbackId, outputFields) {
      await call('POST', `${paths.actionCallbacks}/${at(callbackId)}/complete`, {
        outputFields,
        typedOutputs: outputFields,
      });
    },
  };
}
