/** The record card's data contract: what the card route may send, and what it must not. */
import { describe, expect, it } from 'vitest';
import { CardData, type CardDataInput } from '../../connectors/hubspot/entry-points/card-model.js';

const never: CardDataInput = {
  objectType: 'contact',
  objectId: '1',
  state: 'never',
  lastRunAt: null,
  lastRunTrigger: null,
  fields: [],
  company: null,
  jobChange: null,
};

const issuesOf = (value: unknown) => (CardData.safeParse(value).error?.issues ?? []).map((i) => i.path.join('.'));

describe('CardData', () => {
  it('accepts a record never enriched, filling in the optional run id, label and message', () => {
    expect(CardData.parse(never)).toMatchObject({ lastRunId: null, message: null });
    const withField = CardData.parse({ ...never, fields: [{ property: 'phone', value: '1', reason: 'new' }] });
    expect(withField.fields[0]!.label).toBeNull();
  });

  it('takes a run trigger it does not know yet, since new entry points add their own', () => {
    const run = { state: 'enriched', lastRunAt: '2026-11-20T09:15:00Z', lastRunTrigger: 'zapier' } as const;
    const data = CardData.parse({ ...never, ...run });
    expect(data.lastRunTrigger).toBe('zapier');
  });

  it('names each field that is wrong', () => {
    expect(issuesOf({ ...never, state: 'done' })).toEqual(['state']);
    expect(issuesOf({ ...never, objectType: 'deal' })).toEqual(['objectType']);
    expect(issuesOf({ ...never, lastRunAt: 'yesterday' })).toEqual(['lastRunAt']);
    expect(issuesOf({ ...never, fields: [{ property: 'phone', value: '1' }] })).toEqual(['fields.0.reason']);
    expect(issuesOf({ ...never, company: { id: '9', name: 'Acme' } })).toEqual(['company.reason']);
  });
});
