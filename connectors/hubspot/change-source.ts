/**
 * HubSpot's `changeSource` vocabulary, translated into who made a change (src/core/connector.ts
 * ChangeActor). HubSpot's webhooks name the source of every creation and property change: CRM_UI for a
 * person in HubSpot, IMPORT for an import, INTEGRATION or API for an app (the app's id then comes as
 * `sourceId`), and more. Values not listed here are taken for an app: judged by behaviour, not by name.
 */
import type { ChangeActor } from '../../src/core/connector.js';

/** Changes a person made in HubSpot's own apps, and may be waiting on. */
const PERSON_SOURCES: ReadonlySet<string> = new Set([
  'CRM_UI',
  'MOBILE_IOS',
  'MOBILE_ANDROID',
  'FORM',
  'CONVERSATIONS',
  'CHAT',
  'SALES',
  'EMAIL',
]);

/** Changes HubSpot itself calls bulk work: no person waits for any one record of them. */
const BULK_SOURCES: ReadonlySet<string> = new Set([
  'IMPORT',
  'CRM_UI_BULK_ACTION',
  'BATCH_UPDATE',
  'BULK',
  'MIGRATION',
  'DATA_SYNC',
]);

/** Sources that are a machine acting on its own, named by the app or user id HubSpot gives. */
const APP_SOURCES: ReadonlySet<string> = new Set(['INTEGRATION', 'API', 'WORKFLOWS', 'AUTOMATION_PLATFORM']);

export interface HubspotChange {
  changeSource?: string | undefined;
  sourceId?: string | number | undefined;
  /** The app the delivery is for (the app whose webhooks these are). */
  appId?: string | number | undefined;
}

/**
 * Who made a HubSpot change, and which source it counts against. An INTEGRATION change whose sourceId is
 * the receiving app's own id was made with crm-enrich's token. HubSpot's documented example names
 * `CRM` as a creation's source without saying more: that is left unknown.
 */
export function actorOf(change: HubspotChange): { actor?: ChangeActor; actorId?: string } {
  const source = change.changeSource?.toUpperCase();
  if (!source || source === 'CRM') return {};
  if (PERSON_SOURCES.has(source)) return { actor: 'person' };
  if (BULK_SOURCES.has(source)) return { actor: 'bulk', actorId: source.slice(0, 64) };
  const sourceId = change.sourceId !== undefined ? String(change.sourceId).slice(0, 64) : undefined;
  if (
    source === 'INTEGRATION' &&
    sourceId !== undefined &&
    change.appId !== undefined &&
    sourceId === String(change.appId)
  ) {
    return { actor: 'this_service' };
  }
  const named = APP_SOURCES.has(source) ? `${source}:${sourceId ?? ''}` : source;
  return { actor: 'app', actorId: named.slice(0, 96) };
}
