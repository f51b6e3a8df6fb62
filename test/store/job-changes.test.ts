/**
 * Job changes on PGlite and on a Postgres server: the observer keeps each person record's known role,
 * a move is stored once with an audit row on the record's history (a second look at the same data adds
 * nothing), someone who stayed is never flagged, actions are recorded on the move, and moves are listed
 * by time and counted by week.
 */
import { expect, it } from 'vitest';
import { JobChangeObserver } from '../../src/enrich/job-changes/observer.js';
import type { RecordPlan } from '../../src/enrich/record/record-plan.js';
import { compileMapping, loadMappingDir } from '../../src/mapping/index.js';
import { createDataset } from '../../src/partner/sandbox/dataset.js';
import { describeEachBackend } from '../support/db.js';

const { mappings } = await loadMappingDir('mappings');
const mappingOf = (object: string) =>
  compileMapping(mappings.find((m) => m.document.crm === 'hubspot' && m.document.object === object)!.document);
const contactMapping = mappingOf('contact');
const companyMapping = mappingOf('company');

const planned = (data: Record<string, unknown>): RecordPlan =>
  ({
    kind: 'planned',
    market: 'AU',
    hit: { data, key: { by: 'id', value: String(data.id) }, fromCache: false },
    dataHash: 'h',
    plan: { writes: {} },
  }) as unknown as RecordPlan;

describeEachBackend('job changes', (t) => {
  it('flags a move once, with its audit row, and never someone who stayed', async () => {
    const store = await t.openStore();
    const dataset = createDataset({ seed: 4, companies: 20, people: 40 });
    const [mover, stayer] = dataset.personRecords;
    const actions: string[] = [];
    const observer = new JobChangeObserver({
      store: store.jobChanges,
      actions: () => async (change) => {
        actions.push(change.recordId);
        return { task: 'done', properties: 'skipped: off' };
      },
    });
    const detected: string[] = [];
    observer.on('detected', (c) => detected.push(c.recordId));
    const look = (recordId: string, data: Record<string, unknown>, jobtitle: string | null = null) =>
      observer.observe({
        connection: 'hubspot',
        objectType: 'contact',
        record: { id: recordId, properties: { jobtitle } },
        plan: planned(data),
        mapping: contactMapping,
        jobId: 'job-1',
      });

    const oldTitle = mover!.person.position!;
    expect(await look('c1', mover!.person)).toBeUndefined();
    expect(await look('c2', stayer!.person)).toBeUndefined();
    const from = mover!.employer;
    const to = dataset.companyRecords.find((c) => c.domain !== from.domain)!;
    dataset.movePerson(mover!, to);

    const change = await look('c1', mover!.person, `${oldTitle} (typed)`);
    expect(change).toMatchObject({
      recordId: 'c1',
      personId: mover!.id,
      kind: 'employer',
      from: { companyId: from.company.id, domain: from.domain, name: from.company.name },
      to: { companyId: to.company.id, domain: to.domain, name: to.company.name },
      oldTitle: `${oldTitle} (typed)`,
      newTitle: mover!.person.position,
      started: '2025-06',
      actions: { task: 'done', properties: 'skipped: off' },
    });
    // The same data again, and the one who stayed: nothing more.
    expect(await look('c1', mover!.person)).toBeUndefined();
    expect(await look('c2', stayer!.person)).toBeUndefined();
    expect(detected).toEqual(['c1']);
    expect(actions).toEqual(['c1']);

    const listed = await store.jobChanges.list({ since: new Date(Date.now() - 60_000), limit: 10 });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: change!.id,
      recordId: 'c1',
      actions: { task: 'done', properties: 'skipped: off' },
    });
    expect(await store.jobChanges.list({ since: new Date(Date.now() + 60_000), limit: 10 })).toEqual([]);
    expect(await store.jobChanges.list({ since: new Date(0), limit: 10, connection: 'salesforce' })).toEqual([]);

    const { audit } = await store.recordView({ connection: 'hubspot', objectType: 'contact', recordId: 'c1' }, 10);
    expect(audit).toEqual([
      expect.objectContaining({
        rule: 'job_change',
        outcome: 'job_change',
        oldValue: from.domain,
        newValue: to.domain,
        jobId: 'job-1',
      }),
    ]);
    expect(
      (await store.recordView({ connection: 'hubspot', objectType: 'contact', recordId: 'c2' }, 10)).audit,
    ).toEqual([]);

    const weeks = await store.jobChanges.weekly(new Date(Date.now() - 14 * 86_400_000));
    expect(weeks.reduce((n, w) => n + w.count, 0)).toBe(1);
    expect(weeks[0]!.week).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await store.close();
  });

  it('takes a record now matching someone else as a new known role, not a move; ignores company mappings', async () => {
    const store = await t.openStore();
    const dataset = createDataset({ seed: 4, companies: 20, people: 40 });
    const observer = new JobChangeObserver({ store: store.jobChanges });
    const look = (data: Record<string, unknown>) =>
      observer.observe({
        connection: 'hubspot',
        objectType: 'contact',
        record: { id: 'c9', properties: {} },
        plan: planned(data),
        mapping: contactMapping,
        jobId: null,
      });
    const a = dataset.personRecords.find((p) => p.employer.domain !== dataset.personRecords[0]!.employer.domain)!;
    expect(await look(dataset.personRecords[0]!.person)).toBeUndefined();
    expect(await look(a.person)).toBeUndefined();
    expect((await store.jobChanges.roles('hubspot', 'contact', ['c9'])).get('c9')?.personId).toBe(a.id);
    expect(await store.jobChanges.list({ since: new Date(0), limit: 10 })).toEqual([]);
    await observer.observe({
      connection: 'hubspot',
      objectType: 'company',
      record: { id: 'co9', properties: {} },
      plan: planned(a.person),
      mapping: companyMapping,
      jobId: null,
    });
    expect((await store.jobChanges.roles('hubspot', 'company', ['co9'])).size).toBe(0);
    await store.close();
  });
});
