/**
 * Where each HubSpot API lives in each API version: the legacy numbered paths (objects and properties
 * v3, associations v4, lists v3, account info v3, workflow actions v4) and the date-based ones HubSpot
 * publishes from 2026-09 (`/crm/objects/2026-09/...`). The only place that knows the paths per version:
 * the connector's date-based client builds its requests from it, and the sandbox serves every version
 * it lists.
 */
export const HUBSPOT_API_VERSIONS = ['2026-09', 'v3'] as const;
export type HubspotApiVersion = (typeof HUBSPOT_API_VERSIONS)[number];

/** The version the service speaks unless HUBSPOT_API_VERSION says otherwise. */
export const DEFAULT_HUBSPOT_API_VERSION: HubspotApiVersion = '2026-09';

/** Path prefixes; the object type, ids and the rest of each path follow them. */
export interface HubspotApiPaths {
  /** `{objects}/{objectType}`, `/{id}`, `/batch/{read|create|update}`, `/search`. */
  objects: string;
  /** `{objectAssociations}/{objectType}/{id}/associations/{toObjectType}[/{toId}]`. */
  objectAssociations: string;
  /** `{associations}/{from}/{to}/batch/...` and the pair's `/labels`. */
  associations: string;
  /** `{properties}/{objectType}` and `/groups`. */
  properties: string;
  /** `{lists}/{listId}/memberships`. */
  lists: string;
  /** `{accountInfo}/details` and `/api-usage/daily/private-apps`. */
  accountInfo: string;
  /** Custom workflow action definitions: `{actions}/{appId}[/{definitionId}]`. */
  actions: string;
  /** `{actionCallbacks}/{callbackId}/complete`. */
  actionCallbacks: string;
}

export const HUBSPOT_API_PATHS: Readonly<Record<HubspotApiVersion, HubspotApiPaths>> = {
  v3: {
    objects: '/crm/v3/objects',
    objectAssociations: '/crm/v4/objects',
    associations: '/crm/v4/associations',
    properties: '/crm/v3/properties',
    lists: '/crm/v3/lists',
    accountInfo: '/account-info/v3',
    actions: '/automation/v4/actions',
    actionCallbacks: '/automation/v4/actions/callbacks',
  },
  '2026-09': {
    objects: '/crm/objects/2026-09',
    objectAssociations: '/crm/objects/2026-09',
    associations: '/crm/associations/2026-09',
    properties: '/crm/properties/2026-09',
    lists: '/crm/lists/2026-09',
    accountInfo: '/account-info/2026-09',
    actions: '/automation/actions/2026-09',
    actionCallbacks: '/automation/actions/callbacks/2026-09',
  },
};

/** Whether a version is date-based: HubSpot enforces a portal's validation rules on its writes. */
export const isDateBased = (version: HubspotApiVersion): boolean => version !== 'v3';
