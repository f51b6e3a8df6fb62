/**
 * "Enrich with crm-enrich" as a Salesforce Flow action: `POST /salesforce/actions/enrich`, called by
 * the invocable Apex action through a Named Credential that adds `X-Crm-Enrich-Secret`. Each record is
 * queued like any other; the answer says per record what became of it, or `pending` when its run did
 * not settle within SALESFORCE_ACTION_WAIT_MS (it still runs, and the record's page shows it later).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { toId18 } from '../ids.js';
import { enrichAndWait, type OnDemandOutcome } from '../../../src/enrich/on-demand/on-demand.js';
import { mappedObject } from '../../../src/core/connector-lookup.js';
import { route } from '../../../src/server/admin-request.js';
import { jsonOf, onDemandDeps, rawBody, type EntryPointContext } from '../../../src/server/entry-point-context.js';
import { HttpError } from '../../../src/server/http-error.js';

export const FLOW_ACTION_MAX_RECORDS = 200;

const ActionRequest = z.object({
  organizationId: z
    .string({ error: 'required: the org id ({!$Organization.Id})' })
    .regex(/^00D[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'expected a 15- or 18-character org id starting 00D'),
  records: z
    .array(
      z.object({
        type: z.enum(['Lead', 'Contact', 'Account'], { error: 'expected Lead, Contact or Account' }),
        id: z
          .string({ error: 'required' })
          .refine((v) => toId18(v) !== undefined, 'expected a 15- or 18-character Salesforce record id'),
      }),
      { error: 'required: a list of {type, id}' },
    )
    .min(1, 'expected at least one record')
    .max(FLOW_ACTION_MAX_RECORDS, `expected at most ${FLOW_ACTION_MAX_RECORDS} records per call`),
});

const digest = (s: string) => createHash('sha256').update(s).digest();

export function salesforceActionRoutes(ctx: EntryPointContext): Router {
  const router = Router();
  const base = onDemandDeps(ctx);

  router.post(
    '/salesforce/actions/enrich',
    rawBody,
    route(async (req, res) => {
      const secret = ctx.config.SALESFORCE_WEBHOOK_SECRET;
      if (!secret)
        throw new HttpError(
          503,
          'not_configured',
          'SALESFORCE_WEBHOOK_SECRET is not set; set it and give the same value to the Named Credential.',
        );
      const given = req.get('x-crm-enrich-secret');
      // Compared as digests, so the time taken says nothing about the secret, whatever the lengths.
      if (given === undefined || !timingSafeEqual(digest(given), digest(secret))) {
        const message = 'X-Crm-Enrich-Secret is missing or wrong; it must be the value of SALESFORCE_WEBHOOK_SECRET.';
        throw new HttpError(401, 'invalid_secret', message, { field: 'X-Crm-Enrich-Secret' });
      }
      const parsed = ActionRequest.safeParse(jsonOf(req));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.') || 'body';
        throw new HttpError(400, 'invalid_request', `${field}: ${issue.message}`, { field });
      }
      const connector = ctx.connectors.find((c) => c.crm === 'salesforce');
      if (!connector) throw new HttpError(503, 'not_configured', 'Salesforce is not connected: set its credentials.');
      const org = connector.accountId?.();
      if (!org || org.slice(0, 15) !== parsed.data.organizationId.slice(0, 15)) {
        throw new HttpError(
          403,
          'wrong_org',
          'organizationId: not the connected Salesforce org (SALESFORCE_ORG_ID); nothing was done.',
          { field: 'organizationId' },
        );
      }
      const deadline = Date.now() + ctx.config.SALESFORCE_ACTION_WAIT_MS;
      // Each record is looked up on its own: with many records, looked at less often (200 records: every second).
      const deps = { ...base, pollMs: Math.max(150, parsed.data.records.length * 5) };
      const results = await Promise.all(
        parsed.data.records.map(async (r) => {
          const recordId = toId18(r.id)!;
          const mapped = mappedObject(ctx.connectors, ctx.mappings, { connection: connector.connection }, r.type);
          if (!mapped) return view(r.id, { outcome: 'skipped', fieldsWritten: 0, matched: false });
          const { result } = await enrichAndWait(deps, {
            connection: connector.connection,
            objectType: mapped.objectType,
            recordId,
            trigger: 'flow',
            timeoutMs: Math.max(0, deadline - Date.now()),
          });
          return result === 'pending' ? { id: r.id, outcome: 'pending', fieldsWritten: 0 } : view(r.id, result);
        }),
      );
      res.json({ results });
    }),
  );

  return router;
}

function view(id: string, result: OnDemandOutcome) {
  return { id, outcome: result.outcome, fieldsWritten: result.fieldsWritten };
}
