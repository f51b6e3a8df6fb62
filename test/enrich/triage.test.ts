import { describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { Triage } from '../../src/enrich/triage.js';

const created = (id: number, extra: Partial<RecordEvent> = {}): RecordEvent => ({
  source: 'hubspot',
  connection: 'default',
  objectType: 'contact',
  recordId: String(id),
  kind: 'created',
  dedupKey: `k${id}`,
  occurredAt: new Date(0).toISOString(),
  ...extra,
});
const byKind = (e: RecordEvent): Priority => (e.kind === 'created' || e.kind === 'changed' ? 'interactive' : 'bulk');

describe('triage', () => {
  it('keeps a record a person made interactive and sends what a machine made to the bulk lane', () => {
    const triage = new Triage();
    const events = [created(1, { changeSource: 'CRM_UI' }), created(2, { changeSource: 'IMPORT' }), created(3, { changeSource: 'integration' }), created(4), created(5, { kind: 'deleted' })];
    expect(triage.classify(events, byKind)).toEqual(['interactive', 'bulk', 'bulk', 'interactive', 'bulk']);
  });

  it('keeps a change a person made interactive even in a delivery full of an import', () => {
    const triage = new Triage({ deliveryLimit: 10, rateLimit: 5 });
    const mixed = [...Array.from({ length: 30 }, (_, i) => created(i)), created(100, { changeSource: 'CRM_UI' }), ...Array.from({ length: 30 }, (_, i) => created(200 + i, { changeSource: 'IMPORT' }))];
    const result = triage.classify(mixed, byKind);
    expect(result.filter((p) => p === 'interactive')).toHaveLength(1);
    expect(result[30]).toBe('interactive');
  });

  it('treats a large delivery as bulk, per connection', () => {
    const triage = new Triage({ deliveryLimit: 10 });
    const big = Array.from({ length: 11 }, (_, i) => created(i));
    const other = created(99, { connection: 'eu' });
    const result = triage.classify([...big, other], byKind);
    expect(result.slice(0, 11).every((p) => p === 'bulk')).toBe(true);
    expect(result[11]).toBe('interactive');
    expect(triage.classify(big.slice(0, 10), byKind).every((p) => p === 'interactive')).toBe(true);
  });

  it('turns a flood of single deliveries into bulk work until the rate falls, without touching other connections', () => {
    let now = 0;
    const triage = new Triage({ rateLimit: 5, windowMs: 1_000, now: () => now });
    const first = Array.from({ length: 8 }, (_, i) => triage.classify([created(i)], byKind)[0]);
    expect(first).toEqual(['interactive', 'interactive', 'interactive', 'interactive', 'interactive', 'bulk', 'bulk', 'bulk']);
    expect(triage.classify([created(50, { source: 'salesforce', objectType: 'Contact' })], byKind)).toEqual(['interactive']);
    now = 1_500;
    expect(triage.classify([created(9)], byKind)).toEqual(['interactive']);
  });
});
