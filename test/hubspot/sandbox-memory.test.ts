/**
 * The HubSpot and partner sandboxes share the service's process in the embedded default, so what they
 * keep per record is the service's memory: a changed object keeps its pre-change copy only until search
 * shows the change, and a partner profile is drawn when asked, not kept.
 */
import { describe, expect, it } from 'vitest';
import { SandboxObjectStore } from '../../connectors/hubspot/sandbox/object-store.js';
import { createDataset } from '../../src/partner/sandbox/dataset.js';

describe('sandbox memory per record', () => {
  it('drops the copy search shows of a changed object once the change is indexed', () => {
    const store = new SandboxObjectStore(() => undefined);
    store.searchLagMs = 1_000;
    const t0 = 1_000_000;
    const a = store.create('contacts', { email: 'a@mem.example' }, 'CRM_UI', t0);
    const b = store.create('contacts', { email: 'b@mem.example' }, 'CRM_UI', t0);
    store.update('contacts', a, { jobtitle: 'First' }, 'CRM_UI', t0 + 2_000);
    store.update('contacts', b, { jobtitle: 'First' }, 'CRM_UI', t0 + 2_500);
    // Within the lag, search still shows the version before the change.
    expect(a.indexed?.properties.get('jobtitle')).toBeUndefined();
    expect(store.searchView(a, t0 + 2_900)?.properties.get('jobtitle')).toBeUndefined();
    expect(b.indexed).toBeDefined();
    // Past a's lag but not b's: a's copy is gone, b keeps its own.
    expect(store.searchView(b, t0 + 3_100)?.properties.get('jobtitle')).toBeUndefined();
    expect(a.indexed).toBeUndefined();
    expect(b.indexed).toBeDefined();
    expect(store.searchView(a, t0 + 3_100)?.properties.get('jobtitle')).toBe('First');
    expect(store.searchView(b, t0 + 3_600)?.properties.get('jobtitle')).toBe('First');
    expect(b.indexed).toBeUndefined();
  });

  it('draws a partner profile on each lookup, the same every time', () => {
    const dataset = createDataset({ people: 50, companies: 10 });
    const record = dataset.personRecords[7]!;
    const first = record.person;
    const again = record.person;
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // The partner's data moving on is kept as the changed fields alone, and read back with the rest.
    record.change({ headline: 'A new headline' });
    expect(record.person).toEqual({ ...first, headline: 'A new headline' });
  });
});
