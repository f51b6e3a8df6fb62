/**
 * The sandbox portal's data kept in `<dir>/hubspot-portal-<portalId>.json`, so a restart (Ctrl-C, then
 * `npm start` again on the same data directory) finds its contacts, companies, associations and id
 * counter where they were, and record ids are never handed out twice. Read back through zod.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { SnapshotFile } from '../../sandbox/snapshot-file.js';
import { HubspotPropertySchema } from '../property-wire.js';
import type { SandboxObjectStore } from './object-store.js';

const byType = <T extends z.ZodType>(item: T) => z.object({ contacts: z.array(item), companies: z.array(item) });

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
});

/** Restores the portal from its file in `dir` (when there is one) and returns the file to tell of changes. */
export function keepPortalIn(dir: string, portalId: number, store: SandboxObjectStore): SnapshotFile {
  const file = new SnapshotFile(join(dir, `hubspot-portal-${portalId}.json`), () => ({
    portalId,
    ...store.snapshot(),
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
  return file;
}
