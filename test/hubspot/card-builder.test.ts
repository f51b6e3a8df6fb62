/**
 * The record card's answer from a record's state and audit trail: a request not settled yet is
 * pending, the fields are the values last written with the reason of their newest write, the trigger
 * is the newest run's, and a record never looked at says so. Every answer passes the CardData schema.
 */
import { describe, expect, it } from 'vitest';
import { buildCardData } from '../../connectors/hubspot/entry-points/card-builder.js';
import { CardData } from '../../connectors/hubspot/entry-points/card-model.js';
import type { AuditRow } from '../../src/store/audit-log.js';
import type { RecordState } from '../../src/store/enrichment-state.js';

const key = { connection: 'hubspot', objectType: 'contact', recordId: '1001' };
let nextId = 1;
function row(fields: Partial<AuditRow>): AuditRow {
  return {
    id: nextId++,
    ...key,
    property: null,
    oldValue: null,
    newValue: null,
    rule: null,
    outcome: null,
    reason: null,
    jobId: null,
    actor: null,
    at: new Date('2026-11-26T10:00:00Z'),
    ...fields,
  };
}
const state: RecordState = {
  ...key,
  status: 'enriched',
  partnerId: 'p1',
  matchKey: 'email:x',
  market: 'au',
  lastEnrichedAt: new Date('2026-11-26T10:00:00Z'),
  nextRefreshAt: null,
  lastError: null,
  dataHash: 'h',
  lastWritten: { jobtitle: 'Head of Sales', seniority: null },
  companyId: '2002',
  companyReason: 'matched by domain',
  updatedAt: new Date('2026-11-26T10:00:01Z'),
};

describe('the record card data', () => {
  it('shows the fields last written with the reason of their newest write, the company and the newest run', () => {
    const older = row({
      property: 'jobtitle',
      outcome: 'write',
      reason: 'the property is empty',
      jobId: 'job-1',
      at: new Date('2026-11-20T10:00:00Z'),
    });
    const newer = row({
      property: 'jobtitle',
      outcome: 'write',
      reason: 'the partner has a newer value',
      jobId: 'job-2',
      at: new Date('2026-11-26T10:00:00Z'),
    });
    const data = CardData.parse(
      buildCardData({
        objectType: 'contact',
        objectId: '1001',
        state,
        audit: [newer, older],
        triggers: new Map([['job-2', 'workflow']]),
        companyName: 'Equator Estates',
        labels: new Map([['jobtitle', 'Job Title']]),
      }),
    );
    expect(data).toEqual({
      objectType: 'contact',
      objectId: '1001',
      lastRunId: 'job-2',
      message: null,
      state: 'enriched',
      lastRunAt: '2026-11-26T10:00:00.000Z',
      lastRunTrigger: 'workflow',
      fields: [
        { property: 'jobtitle', label: 'Job Title', value: 'Head of Sales', reason: 'the partner has a newer value' },
      ],
      company: { id: '2002', name: 'Equator Estates', reason: 'matched by domain' },
      jobChange: null,
    });
  });

  it('is pending while a request from the card or a workflow has not settled, and no longer once a run has', () => {
    const run = row({ outcome: 'unchanged', reason: 'nothing new', jobId: 'job-3' });
    const request = row({
      outcome: 'requested',
      reason: 'enrichment asked for by hubspot:card',
      actor: 'hubspot:card',
    });
    expect(
      buildCardData({
        objectType: 'contact',
        objectId: '1001',
        state,
        audit: [request, run],
        triggers: new Map(),
        companyName: null,
        labels: new Map(),
      }).state,
    ).toBe('pending');
    const later = row({ outcome: 'unchanged', reason: 'nothing new', jobId: 'job-4' });
    expect(
      buildCardData({
        objectType: 'contact',
        objectId: '1001',
        state,
        audit: [later, request, run],
        triggers: new Map(),
        companyName: null,
        labels: new Map(),
      }).state,
    ).toBe('enriched');
  });

  it('says never for a record crm-enrich has not looked at, and no_match for one it could not match on', () => {
    const never = CardData.parse(
      buildCardData({
        objectType: 'contact',
        objectId: '1001',
        state: undefined,
        audit: [],
        triggers: new Map(),
        companyName: null,
        labels: new Map(),
      }),
    );
    expect(never).toEqual({
      objectType: 'contact',
      objectId: '1001',
      state: 'never',
      lastRunAt: null,
      lastRunTrigger: null,
      lastRunId: null,
      message: null,
      fields: [],
      company: null,
      jobChange: null,
    });
    const skipped = buildCardData({
      objectType: 'contact',
      objectId: '1001',
      state: { ...state, status: 'skipped', lastWritten: {}, companyId: null },
      audit: [],
      triggers: new Map(),
      companyName: null,
      labels: new Map(),
    });
    expect(skipped.state).toBe('no_match');
    // A run whose job the queue no longer keeps has no trigger to show.
    expect(
      buildCardData({
        objectType: 'contact',
        objectId: '1001',
        state,
        audit: [row({ outcome: 'unchanged', reason: 'x', jobId: 'gone' })],
        triggers: new Map(),
        companyName: null,
        labels: new Map(),
      }).lastRunTrigger,
    ).toBeNull();
  });
});
