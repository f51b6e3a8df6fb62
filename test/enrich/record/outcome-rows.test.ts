/**
 * outcomeRows, the one builder of state and audit rows: a record the service created leaves the same
 * kind of rows an enrichment leaves, each value it was created with counted as written.
 */
import { describe, expect, it } from 'vitest';
import { outcomeRows, type RecordOutcome } from '../../../src/enrich/record/outcome-rows.js';

const where = { connection: 'hubspot', objectType: 'contact', refreshAfterDays: 30 };
const now = new Date('2026-11-28T12:00:00Z');

function created(overrides: Partial<Extract<RecordOutcome['result'], { kind: 'created' }>> = {}): RecordOutcome {
  return {
    recordId: '501',
    jobId: null,
    result: {
      kind: 'created',
      market: 'us',
      partnerId: 'p-7',
      matchKey: 'id:p-7',
      dataHash: 'abc',
      values: { email: 'ada@example.org', jobtitle: 'Engineer', crm_enrich_source: 'discovery' },
      mapped: { jobtitle: 'Engineer' },
      rules: { jobtitle: 'fill_empty' },
      origin: 'discovery',
      reason: 'created by discovery at Acme',
      company: { id: 'c-1', reason: 'created by discovery at this company' },
      ...overrides,
    },
  };
}

describe('outcomeRows for a record the service created', () => {
  it('writes one `write` row per value it was created with, naming the rule or what made it', () => {
    const { audit } = outcomeRows(where, [created()], now);
    expect(audit).toHaveLength(3);
    expect(audit.every((a) => a.outcome === 'write' && a.oldValue === null && a.jobId === null)).toBe(true);
    expect(Object.fromEntries(audit.map((a) => [a.property, a.rule]))).toEqual({
      email: 'discovery',
      jobtitle: 'fill_empty',
      crm_enrich_source: 'discovery',
    });
    expect(audit.find((a) => a.property === 'jobtitle')).toMatchObject({
      newValue: 'Engineer',
      reason: 'created by discovery at Acme',
    });
  });

  it('leaves an enriched state that owns only the mapped values and names its company', () => {
    const { states } = outcomeRows(where, [created()], now);
    expect(states).toEqual([
      expect.objectContaining({
        connection: 'hubspot',
        objectType: 'contact',
        recordId: '501',
        status: 'enriched',
        partnerId: 'p-7',
        matchKey: 'id:p-7',
        market: 'us',
        dataHash: 'abc',
        lastWritten: { jobtitle: 'Engineer' },
        companyId: 'c-1',
        companyReason: 'created by discovery at this company',
        lastEnrichedAt: now,
        nextRefreshAt: new Date('2026-12-28T12:00:00Z'),
      }),
    ]);
  });

  it('leaves the company unnamed when the creation has none', () => {
    const [state] = outcomeRows(where, [created({ company: undefined })], now).states;
    expect(state!.companyId).toBeNull();
  });
});
