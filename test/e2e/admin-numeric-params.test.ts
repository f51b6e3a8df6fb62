/**
 * Every number the admin API takes in a path, a query or a body is range-checked before it reaches the
 * store: a number past what Postgres keeps in an integer (2147483648), or far past it (99999999999), is a
 * 400 naming the field, never a 500 with the database's "out of range". Over real HTTP, real Postgres.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface ErrorBody {
  error: { code: string; message: string; details: { field?: string } };
}

const HUGE = [2147483648, 99999999999];

/** Each numeric route, with the request that puts `n` in its one numeric field. */
const ROUTES: { field: string; call: (n: number | string) => [string, string, unknown?] }[] = [
  { field: 'limit', call: (n) => ['GET', `/dead-letters?limit=${n}`] },
  { field: 'limit', call: (n) => ['GET', `/jobs/retrying?limit=${n}`] },
  { field: 'limit', call: (n) => ['GET', `/records/hubspot/contact/1001?limit=${n}`] },
  { field: 'limit', call: (n) => ['GET', `/job-changes?limit=${n}`] },
  { field: 'offset', call: (n) => ['GET', `/filter-options?identifiers=seniority&offset=${n}`] },
  { field: 'version', call: (n) => ['GET', `/mappings/hubspot/contact/versions/${n}`] },
  { field: 'version', call: (n) => ['POST', '/mappings/hubspot/contact/rollback', { version: n }] },
  { field: 'limit', call: (n) => ['POST', '/backfills', { connection: 'hubspot', object: 'contact', limit: n }] },
  {
    field: 'limit',
    call: (n) => ['POST', '/backfills/dry-run', { connection: 'hubspot', object: 'contact', limit: n }],
  },
  { field: 'limit', call: (n) => ['POST', '/discovery/preview', { crm: 'hubspot', companyId: '1', limit: n }] },
  { field: 'limit', call: (n) => ['POST', '/discovery/run', { crm: 'hubspot', companyId: '1', limit: n }] },
];

describe.skipIf(skip)('numbers in the admin API', () => {
  const stack = useStack();

  it.each(HUGE)('answers %s in every numeric field with a 400 naming the field', async (n) => {
    for (const { field, call } of ROUTES) {
      const [method, path, body] = call(n);
      const res = await stack.running.admin<ErrorBody>(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.code, `${method} ${path}`).toBe('invalid_request');
      expect(res.body.error.details.field, `${method} ${path}`).toBe(field);
      expect(res.body.error.message, `${method} ${path}`).toMatch(new RegExp(`^${field}: `));
      expect(res.body.error.message).not.toMatch(/out of range|integer|postgres/i);
    }
  });

  it('refuses a negative, fractional or written-out number in a path or query as well', async () => {
    for (const text of ['-1', '1.5', '1e3', '0x10', 'ten', '']) {
      const version = await stack.running.admin<ErrorBody>(
        'GET',
        `/mappings/hubspot/contact/versions/${text || '%20'}`,
      );
      expect(version.status, text).toBe(400);
      expect(version.body.error.details.field).toBe('version');
      const limit = await stack.running.admin<ErrorBody>('GET', `/dead-letters?limit=${text}`);
      expect(limit.status, text).toBe(400);
      expect(limit.body.error.details.field).toBe('limit');
    }
  });

  it('takes the largest version the store can hold, and the limits it documents', async () => {
    const top = await stack.running.admin<ErrorBody>('GET', '/mappings/hubspot/contact/versions/2147483647');
    expect(top.status).toBe(404);
    expect(top.body.error.details.field).toBe('version');
    const rollback = await stack.running.admin<ErrorBody>('POST', '/mappings/hubspot/contact/rollback', {
      version: 2147483647,
    });
    expect(rollback.status).toBeLessThan(500);
    expect((await stack.running.admin('GET', '/dead-letters?limit=1000')).status).toBe(200);
    expect((await stack.running.admin('GET', '/dead-letters')).status).toBe(200);
    expect((await stack.running.admin('GET', '/jobs/retrying?limit=1')).status).toBe(200);
    expect((await stack.running.admin<ErrorBody>('GET', '/dead-letters?limit=1001')).body.error.details.field).toBe(
      'limit',
    );
  });
});
