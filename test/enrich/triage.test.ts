import { describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { Triage } from '../../src/enrich/intake/triage.js';

const created = (id: number, extra: Partial<RecordEvent> = {}): RecordEvent => ({
  crm: 'hubspot',
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
  it('keeps a record a person made interactive, sends bulk work to the bulk lane, and judges apps by behaviour', () => {
    const triage = new Triage();
    const events = [
      created(1, { actor: 'person' }),
      created(2, { actor: 'bulk', actorId: 'IMPORT' }),
      created(3, { actor: 'app', actorId: 'INTEGRATION:77' }),
      created(4),
      created(5, { kind: 'deleted' }),
      created(6, { actor: 'this_service' }),
    ];
    expect(triage.classify(events, byKind)).toEqual([
      'interactive',
      'bulk',
      'interactive',
      'interactive',
      'bulk',
      'interactive',
    ]);
  });

  it('keeps a change a person made interactive even in a delivery full of an import', () => {
    const triage = new Triage({ deliveryLimit: 10, rateLimit: 5 });
    const mixed = [
      ...Array.from({ length: 30 }, (_, i) => created(i, { actor: 'app', actorId: 'INTEGRATION:1' })),
      created(100, { actor: 'person' }),
      ...Array.from({ length: 30 }, (_, i) => created(200 + i, { actor: 'bulk', actorId: 'IMPORT' })),
    ];
    const result = triage.classify(mixed, byKind);
    expect(result.filter((p) => p === 'interactive')).toHaveLength(1);
    expect(result[30]).toBe('interactive');
  });

  it("treats a big batch from one app as bulk, and leaves another app's single record interactive", () => {
    const triage = new Triage({ deliveryLimit: 10 });
    const batch = Array.from({ length: 11 }, (_, i) => created(i, { actor: 'app', actorId: 'INTEGRATION:1' }));
    const form = created(99, { actor: 'app', actorId: 'INTEGRATION:2' });
    const otherConnection = created(98, { actor: 'app', actorId: 'INTEGRATION:1', connection: 'eu' });
    const result = triage.classify([...batch, form, otherConnection], byKind);
    expect(result.slice(0, 11).every((p) => p === 'bulk')).toBe(true);
    expect(result.slice(11)).toEqual(['interactive', 'interactive']);
    expect(triage.classify(batch.slice(0, 10), byKind).every((p) => p === 'interactive')).toBe(true);
  });

  it(
    'turns a stream of single records from one source into bulk work until its rate falls, ' +
      'without touching other sources',
    () => {
      let now = 0;
      const triage = new Triage({ rateLimit: 5, windowMs: 1_000, now: () => now });
      const script = (i: number) => created(i, { actor: 'app', actorId: 'API:script' });
      const first = Array.from({ length: 8 }, (_, i) => triage.classify([script(i)], byKind)[0]);
      expect(first).toEqual([
        'interactive',
        'interactive',
        'interactive',
        'interactive',
        'interactive',
        'bulk',
        'bulk',
        'bulk',
      ]);
      expect(triage.classify([created(60, { actor: 'app', actorId: 'INTEGRATION:form' })], byKind)).toEqual([
        'interactive',
      ]);
      expect(triage.classify([created(50, { crm: 'salesforce', objectType: 'Contact' })], byKind)).toEqual([
        'interactive',
      ]);
      now = 1_500;
      expect(triage.classify([script(9)], byKind)).toEqual(['interactive']);
    },
  );
});
