/**
 * Writes updates in batches and answers one result per update, in order. HubSpot refuses a batch
 * with the same id twice, so updates to one record are merged first (later values win). A batch
 * refused as a whole for a bad property is sent again without the records that carry it.
 */
import { CrmError, type RecordUpdate, type WriteResult } from '../../src/core/connector.js';
import { batchOutcome, propertyNamesIn, requiredPropertiesIn } from './batch-outcome.js';

type Input = { id: string; properties: Record<string, string> };
type Send = (inputs: Input[]) => Promise<{ results: { id: string }[]; errors: unknown[] }>;

function failed(id: string, code: string, message: string, retryable: boolean, fields?: string[]): WriteResult {
  return { id, ok: false, error: { code, message, retryable, ...(fields && fields.length > 0 ? { fields } : {}) } };
}

async function sendChunk(inputs: Input[], send: Send, resendAllowed: boolean): Promise<Map<string, WriteResult>> {
  const ids = inputs.map((i) => i.id);
  try {
    const answer = await send(inputs);
    return batchOutcome(ids, answer.results, answer.errors as Parameters<typeof batchOutcome>[2]);
  } catch (error) {
    const status = error instanceof CrmError ? error.details?.status : undefined;
    if (!(error instanceof CrmError) || error.code !== 'validation' || status !== 400) throw error;
    const body = (error.details?.body ?? {}) as Parameters<typeof propertyNamesIn>[0];
    // Every record lacks a required property the same way: sending the others again would only be refused again.
    const required = requiredPropertiesIn(body);
    if (required.length > 0)
      return new Map(inputs.map((i) => [i.id, failed(i.id, 'validation', error.message, false, required)]));
    const bad = new Set(propertyNamesIn(body));
    const carrying = inputs.filter((i) => Object.keys(i.properties).some((k) => bad.has(k)));
    const outcome = new Map<string, WriteResult>();
    const clean = bad.size > 0 ? inputs.filter((i) => !carrying.includes(i)) : [];
    const refused = bad.size > 0 ? carrying : inputs;
    for (const i of refused) {
      outcome.set(
        i.id,
        failed(
          i.id,
          'validation',
          error.message,
          false,
          Object.keys(i.properties).filter((k) => bad.has(k)),
        ),
      );
    }
    if (clean.length > 0 && resendAllowed) {
      for (const [id, r] of await sendChunk(clean, send, false)) outcome.set(id, r);
    } else {
      for (const i of clean) outcome.set(i.id, failed(i.id, 'validation', error.message, true));
    }
    return outcome;
  }
}

export async function writeInBatches(updates: RecordUpdate[], size: number, send: Send): Promise<WriteResult[]> {
  const merged = new Map<string, Record<string, string>>();
  for (const u of updates) merged.set(u.id, { ...(merged.get(u.id) ?? {}), ...u.properties });
  const inputs = [...merged].map(([id, properties]) => ({ id, properties }));
  const outcome = new Map<string, WriteResult>();
  let stopped: CrmError | undefined;
  for (let i = 0; i < inputs.length; i += size) {
    const part = inputs.slice(i, i + size);
    if (stopped) {
      for (const p of part)
        outcome.set(p.id, failed(p.id, stopped.code, stopped.message, stopped.code === 'daily_limit'));
      continue;
    }
    try {
      for (const [id, r] of await sendChunk(part, send, true)) outcome.set(id, r);
    } catch (error) {
      // Nothing written yet and a person must act (token, daily limit): say so plainly.
      if (error instanceof CrmError && error.kind === 'config' && outcome.size === 0) throw error;
      const e = error instanceof CrmError ? error : new CrmError('hubspot', 'unavailable', (error as Error).message);
      if (e.kind === 'config') stopped = e;
      for (const p of part) outcome.set(p.id, failed(p.id, e.code, e.message, e.retryable || e.code === 'daily_limit'));
    }
  }
  return updates.map((u) => ({ ...(outcome.get(u.id) ?? failed(u.id, 'no_result', 'Not written.', true)), id: u.id }));
}
