/**
 * The sandbox org's data kept in `<dir>/salesforce-org-<orgId>.json`, so a restart (Ctrl-C, then
 * `npm start` again on the same data directory) finds its leads, contacts, accounts, tasks, custom
 * fields and id counter where they were, and record ids are never handed out twice. Read back through zod.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { SnapshotFile } from '../../sandbox/snapshot-file.js';
import { isSandboxObjectType, type OrgData, type OrgSnapshot } from './org-data.js';
import { SANDBOX_OBJECT_TYPES } from '../standard-fields.js';

const ObjectType = z
  .string()
  .refine(isSandboxObjectType, { message: `expected one of ${SANDBOX_OBJECT_TYPES.join(', ')}` });

const OrgFileSchema = z.object({
  orgId: z.string(),
  counter: z.number().int().nonnegative(),
  records: z.array(
    z.object({
      type: ObjectType,
      id: z.string().length(18),
      fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    }),
  ),
  // Describe entries as the org made them (standard-fields.ts); only the name is relied on here.
  customFields: z.record(ObjectType, z.array(z.looseObject({ name: z.string(), custom: z.literal(true) }))),
  hiddenFields: z.record(ObjectType, z.array(z.string())),
});

/** Restores the org from its file in `dir` (when there is one) and returns the file to tell of changes. */
export function keepOrgIn(dir: string, orgId: string, org: OrgData): SnapshotFile {
  const file = new SnapshotFile(join(dir, `salesforce-org-${orgId}.json`), () => ({ orgId, ...org.snapshot() }));
  const raw = file.read();
  if (raw === undefined) return file;
  const parsed = OrgFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `${file.path} is not a Salesforce sandbox org's data (${z.prettifyError(parsed.error)}); move it away ` +
        'to start empty',
    );
  if (parsed.data.orgId !== orgId) throw new Error(`${file.path} holds org ${parsed.data.orgId}, not ${orgId}`);
  org.restore(parsed.data as unknown as OrgSnapshot);
  return file;
}
