/**
 * How the actions file's switches reach a connector: only switched-on connections act, the new employer
 * is resolved only for the actions that use it, and a failure to resolve it is that action's reason, not
 * an error that would lose the move's actions. The connector here records what it is asked; the
 * connectors' own calls are tested against their sandboxes (test/hubspot, test/salesforce).
 */
import { describe, expect, it } from 'vitest';
import type { CrmConnector, JobChangeAct, JobChangeActionSwitches } from '../../../src/core/connector.js';
import { AppError } from '../../../src/core/errors.js';
import { jobChangeActionsFor } from '../../../src/enrich/job-changes/actions.js';
import type { MoveContext } from '../../../src/enrich/job-changes/observer.js';
import type { JobChange } from '../../../src/store/job-changes.js';

const asked: { change: JobChangeAct; switches: JobChangeActionSwitches }[] = [];
const connector = {
  connection: 'hubspot',
  async applyJobChange(_type: string, change: JobChangeAct, switches: JobChangeActionSwitches) {
    asked.push({ change, switches });
    return { employer: 'done' };
  },
} as unknown as CrmConnector;

const change: JobChange = {
  id: '1',
  connection: 'hubspot',
  objectType: 'contact',
  recordId: '42',
  personId: 'p-1',
  kind: 'employer',
  from: { companyId: 'c-1', domain: 'acme.example', name: 'Acme' },
  to: { companyId: 'c-2', domain: 'globex.example', name: 'Globex' },
  oldTitle: 'Manager',
  newTitle: 'Director',
  started: '2025-06',
  reason: 'moved',
  detectedAt: new Date('2026-11-20T10:00:00Z'),
  actions: {},
};
const person = { email: 'ann@globex.example', firstName: 'Ann', lastName: 'Lee' };
const context = (newCompany: MoveContext['newCompany']): MoveContext => ({
  previousCompanyId: '101',
  newCompany,
  newContact: person,
});
const switches = (on: Partial<JobChangeActionSwitches>) => ({
  connections: { hubspot: { properties: false, task: false, employer: false, newContact: false, ...on } },
  sweep: {},
});

describe('jobChangeActionsFor', () => {
  it('acts only for a connection with an action on', () => {
    expect(jobChangeActionsFor([connector], switches({}))('hubspot')).toBeUndefined();
    expect(jobChangeActionsFor([connector], switches({ task: true }))('salesforce')).toBeUndefined();
    expect(jobChangeActionsFor([connector], undefined)('hubspot')).toBeUndefined();
  });

  it('hands the connector the new company and the person at the new employer only for actions using them', async () => {
    asked.length = 0;
    let resolved = 0;
    const found = context(async () => (resolved++, { companyId: '202' }));
    await jobChangeActionsFor([connector], switches({ task: true }))('hubspot')!(
      change,
      { id: '42', properties: {} },
      found,
    );
    expect(resolved).toBe(0);
    expect(asked[0]!.change).toMatchObject({ newCompanyId: null, newContact: null, previousCompanyId: '101' });

    await jobChangeActionsFor([connector], switches({ employer: true }))('hubspot')!(
      change,
      { id: '42', properties: {} },
      found,
    );
    expect(resolved).toBe(1);
    expect(asked[1]!.change).toMatchObject({ newCompanyId: '202', newContact: null });

    await jobChangeActionsFor([connector], switches({ newContact: true }))('hubspot')!(
      change,
      { id: '42', properties: {} },
      found,
    );
    expect(asked[2]!.change).toMatchObject({ newCompanyId: '202', newContact: person });
  });

  it("makes a new employer that cannot be resolved the action's reason, not an error", async () => {
    asked.length = 0;
    const failing = context(async () => {
      throw new AppError('claim_held', 'another instance holds the domain', 'transient');
    });
    const act = jobChangeActionsFor([connector], switches({ employer: true }))('hubspot')!;
    await expect(act(change, { id: '42', properties: {} }, failing)).resolves.toEqual({ employer: 'done' });
    expect(asked[0]!.change).toMatchObject({
      newCompanyId: null,
      newCompanyReason: expect.stringMatching(/could not be resolved \(claim_held\)/),
    });
    const none = context(async () => ({ reason: 'creation is off' }));
    await act(change, { id: '42', properties: {} }, none);
    expect(asked[1]!.change).toMatchObject({ newCompanyId: null, newCompanyReason: 'creation is off' });
  });

  it('leaves the company alone for a new role at the same employer', async () => {
    asked.length = 0;
    let resolved = 0;
    const found = context(async () => (resolved++, { companyId: '202' }));
    const act = jobChangeActionsFor([connector], switches({ employer: true, newContact: true }))('hubspot')!;
    await act({ ...change, kind: 'new_role' }, { id: '42', properties: {} }, found);
    expect(resolved).toBe(0);
    expect(asked[0]!.change).toMatchObject({
      newCompanyId: null,
      newCompanyReason: 'a new role at the same employer',
      newContact: null,
    });
  });
});
