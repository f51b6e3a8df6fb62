/**
 * The intake drops the creation events of records the service created, whether the CRM names the service's
 * token as their maker (HubSpot) or names no maker at all (a Salesforce outbound message): a company created
 * for a job change is not enriched at once by its own creation event. A creation someone else made is work.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { storePorts } from '../../src/app/store-ports.js';
import type { RecordEvent } from '../../src/core/connector.js';
import { Intake } from '../../src/enrich/intake/intake.js';
import type { NewJob } from '../../src/enrich/ports.js';
import { compileMapping } from '../../src/mapping/compile.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';
import { describeEachBackend } from '../support/db.js';

const ACCOUNT_MAPPING = 'mappings/salesforce/account.yaml';

describeEachBackend('intake of creation events', (t) => {
  it('drops the creations of records the service created, with or without a named maker', async () => {
    const store = await t.openStore();
    const ports = storePorts(store);
    const parsed = parseMappingDocument(await readFile(ACCOUNT_MAPPING, 'utf8'), ACCOUNT_MAPPING);
    expect(parsed.problems).toEqual([]);
    const mapping = compileMapping(parsed.document!);
    const stored: NewJob[] = [];
    const intake = new Intake({
      mapping: (crm, objectType) => (crm === 'salesforce' && objectType === 'Account' ? mapping : undefined),
      state: ports.state,
      created: ports.created,
      writing: ports.writing,
      enqueue: {
        async enqueue(jobs) {
          stored.push(...jobs);
          return { inserted: jobs.length, duplicates: 0 };
        },
      },
    });
    const suffix = `${t.backend}${Date.now()}`.slice(-8).padStart(8, '0');
    const [ours, tokenOurs, theirs] = ['A', 'B', 'C'].map((c) => `001${c}${suffix}000000`.slice(0, 18));
    await ports.created.add('salesforce', 'Account', [ours!, tokenOurs!]);
    const creation = (recordId: string, extra: Partial<RecordEvent> = {}): RecordEvent => ({
      crm: 'salesforce',
      connection: 'salesforce',
      objectType: 'Account',
      recordId,
      kind: 'created',
      dedupKey: `created:${recordId}`,
      occurredAt: new Date().toISOString(),
      values: { Id: recordId, Name: 'New Employer', Website: 'new-employer.example' },
      ...extra,
    });

    const result = await intake.receive([
      creation(ours!),
      creation(tokenOurs!, { actor: 'this_service' }),
      creation(theirs!),
    ]);
    expect(stored.map((j) => j.data.recordId)).toEqual([theirs]);
    expect(result).toMatchObject({ stored: 1, ignored: 2 });
  });
});
