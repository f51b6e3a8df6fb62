/**
 * The sandbox portal's data kept in `<dir>/hubspot-portal-<portalId>.json`, so a restart (Ctrl-C, then
 * `npm start` again on the same data directory) finds its contacts, companies, associations and id
 * counter where they were, and record ids are never handed out twice; and its app's webhooks journal, so
 * an offset the service saved before the restart is still there. Read back through zod.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { SnapshotFile } from '../../sandbox/snapshot-file.js';
import { HubspotPropertySchema } from '../property-wire.js';
import type { SandboxObjectStore } from './object-store.js';
import { FILTER_OPERATORS, JOURNAL_ACTIONS, type SandboxJournal } from './journal.js';

const byType = <T extends z.ZodType>(item: T) => z.object({ contacts: z.array(item), companies: z.array(item) });

const JournalSchema = z.object({
  entries: z.array(
    z.object({
      offset: z.string(),
      publishedAt: z.number(),
      events: z.array(
        z.object({
          eventId: z.number().int(),
          subscriptionId: z.number().int(),
          portalId: z.number().int(),
          appId: z.number().int(),
          occurredAt: z.number(),
          action: z.enum(JOURNAL_ACTIONS),
          objectTypeId: z.string(),
          objectId: z.number().int(),
          changeSource: z.enum(['CRM_UI', 'INTEGRATION', 'IMPORT', 'CRM_UI_BULK_ACTION']),
          sourceId: z.string().optional(),
          propertyChanges: z.record(z.string(), z.string()).optional(),
        }),
      ),
    }),
  ),
  subscriptions: z.array(
    z.object({
      id: z.number().int(),
      appId: z.number().int(),
      portalId: z.number().int(),
      subscriptionType: z.literal('OBJECT'),
      objectTypeId: z.string(),
      actions: z.array(z.enum(JOURNAL_ACTIONS)),
      properties: z.array(z.string()),
      objectIds: z.array(z.number().int()),
      createdAt: z.string(),
      updatedAt: z.string(),
    }),
  ),
  filters: z.array(
    z.object({
      id: z.number().int(),
      subscriptionId: z.number().int(),
      createdAt: z.number(),
      filter: z.object({
        conditions: z.array(
          z.object({
            filterType: z.literal('CRM_OBJECT_PROPERTY'),
            operator: z.enum(FILTER_OPERATORS),
            property: z.string(),
            value: z.string().optional(),
            values: z.array(z.string()).optional(),
          }),
        ),
      }),
    }),
  ),
  nextIds: z.object({ subscription: z.number().int(), filter: z.number().int(), event: z.number().int() }),
});

const PortalFileSchema = z.object({
  portalId: z.number().int(),
  nextId: z.number().int().positive(),
  objects: byType(
    z.object({
      id: z.string().regex(/^\d+$/),
      properties: z.record(z.string(), z.string()),
      createdAt: z.iso.datetime(),
      updatedAt: z.iso.datetime(),
    }),
  ),
  customProperties: byType(HubspotPropertySchema),
  groups: byType(z.object({ name: z.string(), label: z.string(), displayOrder: z.number(), archived: z.boolean() })),
  associations: z.object({
    labels: z.array(
      z.object({ label: z.string(), name: z.string(), contactToCompany: z.number(), companyToContact: z.number() }),
    ),
    pairs: z.array(z.object({ contactId: z.string(), companyId: z.string(), types: z.array(z.number().int()) })),
  }),
  // Files written before the journal was kept have none.
  journal: JournalSchema.optional(),
});

/** Restores the portal from its file in `dir` (when there is one) and returns the file to tell of changes. */
export function keepPortalIn(
  dir: string,
  portalId: number,
  store: SandboxObjectStore,
  journal: SandboxJournal,
): SnapshotFile {
  const file = new SnapshotFile(join(dir, `hubspot-portal-${portalId}.json`), () => ({
    portalId,
    ...store.snapshot(),
    journal: journal.data(),
  }));
  const raw = file.read();
  if (raw === undefined) return file;
  const parsed = PortalFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `${file.path} is not a HubSpot sandbox portal's data (${z.prettifyError(parsed.error)}); move it away ` +
        'to start empty',
    );
  if (parsed.data.portalId !== portalId)
    throw new Error(`${file.path} holds portal ${parsed.data.portalId}, not ${portalId}`);
  store.restore(parsed.data);
  if (parsed.data.journal) journal.restore(parsed.data.journal);
  return file;
}
