import { describe, expect, it } from 'vitest';
import { plan, sameValue } from '../../src/mapping/planner.js';

const decision = (result: ReturnType<typeof plan>, property: string) =>
  result.decisions.find((d) => d.property === property)!;

describe('plan', () => {
  it('does not write a value longer than the CRM takes, and says why, while the rest is written', () => {
    const long = 'x'.repeat(65_537);
    const out = plan({
      current: {},
      mapped: { headline: long, jobtitle: 'CTO' },
      lastWritten: {},
      rules: { headline: 'overwrite', jobtitle: 'overwrite' },
      maxValueLength: 65_536,
    });
    expect(out.writes).toEqual({ jobtitle: 'CTO' });
    const decision = out.decisions.find((d) => d.property === 'headline')!;
    expect(decision.outcome).toBe('too_long');
    expect(decision.reason).toMatch(/65537 characters, more than the CRM takes \(65536\)/);
    expect(
      plan({
        current: {},
        mapped: { headline: 'x'.repeat(65_536) },
        lastWritten: {},
        rules: { headline: 'overwrite' },
        maxValueLength: 65_536,
      }).writes.headline,
    ).toHaveLength(65_536);
  });

  it('protect_edits writes into an empty property and over our own last write', () => {
    const result = plan({
      current: { jobtitle: 'CTO', city: null },
      mapped: { jobtitle: 'CEO', city: 'Sydney' },
      lastWritten: { jobtitle: 'CTO' },
      rules: { jobtitle: 'protect_edits', city: 'protect_edits' },
    });
    expect(result.writes).toEqual({ jobtitle: 'CEO', city: 'Sydney' });
    expect(decision(result, 'jobtitle').outcome).toBe('write');
  });

  it('protect_edits keeps a value a person changed since our last write', () => {
    const result = plan({
      current: { jobtitle: 'Chief Executive' },
      mapped: { jobtitle: 'CEO' },
      lastWritten: { jobtitle: 'CTO' },
      rules: { jobtitle: 'protect_edits' },
    });
    expect(result.writes).toEqual({});
    expect(decision(result, 'jobtitle')).toMatchObject({
      outcome: 'kept_person_edit',
      current: 'Chief Executive',
      next: 'CEO',
    });
  });

  it('protect_edits keeps a value we never wrote', () => {
    const result = plan({
      current: { jobtitle: 'Typed by hand' },
      mapped: { jobtitle: 'CEO' },
      lastWritten: {},
      rules: { jobtitle: 'protect_edits' },
    });
    expect(decision(result, 'jobtitle').outcome).toBe('kept_person_edit');
  });

  it('writes nothing when nothing changed, whatever the rule', () => {
    const result = plan({
      current: { a: 'x', b: '1000', c: 'y', d: 'true' },
      mapped: { a: 'x', b: '1000.0', c: 'y', d: 'TRUE' },
      lastWritten: { a: 'x' },
      rules: { a: 'protect_edits', b: 'overwrite', c: 'fill_empty', d: 'overwrite' },
      stamp: { property: 'enriched_at', value: '2024-01-01T00:00:00.000Z' },
    });
    expect(result.writes).toEqual({});
    expect(result.decisions.filter((d) => d.property !== 'enriched_at').every((d) => d.outcome === 'unchanged')).toBe(
      true,
    );
    expect(decision(result, 'enriched_at').outcome).toBe('unchanged');
  });

  it('fill_empty writes into a blank value and keeps a filled one', () => {
    const blank = plan({
      current: { company: '  ' },
      mapped: { company: 'Acme' },
      lastWritten: {},
      rules: { company: 'fill_empty' },
    });
    expect(blank.writes).toEqual({ company: 'Acme' });
    const filled = plan({
      current: { company: 'Acme Pty' },
      mapped: { company: 'Acme' },
      lastWritten: { company: 'Acme Pty' },
      rules: { company: 'fill_empty' },
    });
    expect(filled.writes).toEqual({});
    expect(decision(filled, 'company').outcome).toBe('filled_already');
  });

  it("overwrite replaces a different value, even a person's", () => {
    const result = plan({ current: { id: 'old' }, mapped: { id: 'new' }, lastWritten: {}, rules: { id: 'overwrite' } });
    expect(result.writes).toEqual({ id: 'new' });
  });

  it('never is never written', () => {
    const result = plan({ current: {}, mapped: { owner: 'x' }, lastWritten: {}, rules: { owner: 'never' } });
    expect(result.writes).toEqual({});
    expect(decision(result, 'owner').outcome).toBe('never');
  });

  it('no_value: a property the partner has no value for is not cleared', () => {
    const result = plan({
      current: { phone: '+61 2 1234' },
      mapped: {},
      lastWritten: { phone: '+61 2 1234' },
      rules: { phone: 'overwrite' },
    });
    expect(result.writes).toEqual({});
    expect(decision(result, 'phone')).toMatchObject({ outcome: 'no_value', next: null });
  });

  it('mapped properties without a rule follow protect_edits', () => {
    const result = plan({ current: { x: 'mine' }, mapped: { x: 'theirs' }, lastWritten: {}, rules: {} });
    expect(decision(result, 'x')).toMatchObject({ rule: 'protect_edits', outcome: 'kept_person_edit' });
  });

  it('the enriched-at stamp is written with other changes, never alone', () => {
    const stamp = { property: 'crm_enrich_enriched_at', value: '2024-05-01T00:00:00.000Z' };
    const changed = plan({ current: {}, mapped: { a: '1' }, lastWritten: {}, rules: { a: 'overwrite' }, stamp });
    expect(changed.writes).toEqual({ a: '1', crm_enrich_enriched_at: stamp.value });
    const alone = plan({
      current: { a: '1', crm_enrich_enriched_at: '2020-01-01' },
      mapped: { a: '1' },
      lastWritten: {},
      rules: { a: 'overwrite' },
      stamp,
    });
    expect(alone.writes).toEqual({});
  });
});

describe('sameValue', () => {
  it('compares as the CRM stores values', () => {
    expect(sameValue('2024-01-01', '2024-01-01T00:00:00.000Z')).toBe(true);
    expect(sameValue('12', '12.00')).toBe(true);
    expect(sameValue('Acme', 'acme')).toBe(false);
    expect(sameValue('12', '13')).toBe(false);
  });
});
