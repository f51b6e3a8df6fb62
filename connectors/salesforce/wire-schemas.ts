/**
 * The shapes of Salesforce's answers that the connector reads, checked with zod instead of cast. Loose
 * objects: Salesforce adds fields between API versions, and only the ones read here must be there.
 */
import { z } from 'zod';

/** A SOQL query or queryMore page: rows stay open records, read field by field (toRecord). */
export const QueryPage = z.looseObject({
  records: z.array(z.record(z.string(), z.unknown())),
  nextRecordsUrl: z.string().optional(),
});

/** `SELECT COUNT() FROM ...`: the number is the answer's totalSize. */
export const CountAnswer = z.looseObject({ totalSize: z.number().int().nonnegative() });

const SaveError = z.looseObject({
  statusCode: z.string().optional(),
  errorCode: z.string().optional(),
  message: z.string().optional(),
  fields: z.array(z.string()).optional(),
});

/** GET /services/oauth2/userinfo (OpenID Connect UserInfo): the org the session belongs to. */
export const UserInfo = z.looseObject({
  organization_id: z.string().regex(/^00D[a-zA-Z0-9]{12}([a-zA-Z0-9]{3})?$/, 'expected an organization id (00D...)'),
});

/** sObject Collections create and update: one result per record, in the order sent. */
export const SaveResults = z.array(
  z.looseObject({
    success: z.boolean(),
    id: z.string().nullish(),
    errors: z.array(SaveError).optional(),
  }),
);

export type SaveResult = z.output<typeof SaveResults>[number];

/** A Bulk API 2.0 ingest job's info (create, close, Get Job Info): its id, state and why it failed. */
export const IngestJobInfo = z.looseObject({
  id: z.string().min(1),
  state: z.enum(['Open', 'UploadComplete', 'InProgress', 'JobComplete', 'Failed', 'Aborted']),
  errorMessage: z.string().nullish(),
});

export type IngestJobInfo = z.output<typeof IngestJobInfo>;
