/**
 * HubSpot's job-change actions that follow the person to the new employer: the new company becomes the
 * contact's primary company and the company left keeps its association under the "Former employee" label
 * (one batch association call: HubSpot moves the primary type off the old company when a new primary is
 * set); and, when asked, a new contact at the new employer, after a search shows no contact has the
 * address. The contact's own e-mail is never written.
 */
import type { JobChangeAct } from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import type { Priority } from '../../src/core/limiter.js';
import { formerEmployeeSpec } from './former-employee-label.js';
import type { HubspotCalls } from './sdk-objects.js';
import { AssociationBatch, HubspotObject } from './wire-schemas.js';
import type { AssociationSpec } from './hubspot-api.js';

const PRIMARY: AssociationSpec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 };
const UNLABELED: AssociationSpec = { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 };

/** What became of an action: `done`, `skipped: <why>` or `failed: <why>`. */
export type ActionOutcome = string;

export async function moveToNewEmployer(
  { runner, api }: HubspotCalls,
  formerEmployeeTypeId: number | undefined,
  change: JobChangeAct,
  priority: Priority,
): Promise<ActionOutcome> {
  const next = change.newCompanyId;
  if (!next) return `skipped: ${change.newCompanyReason ?? 'no company for the new employer'}`;
  const previous = change.previousCompanyId && change.previousCompanyId !== next ? change.previousCompanyId : null;
  if (previous && formerEmployeeTypeId === undefined)
    return 'failed: label_missing (run crm-enrich mappings provision to create the "Former employee" label)';
  const inputs = [
    { from: { id: change.recordId }, to: { id: next }, types: [UNLABELED, PRIMARY] },
    ...(previous
      ? [{ from: { id: change.recordId }, to: { id: previous }, types: [formerEmployeeSpec(formerEmployeeTypeId!)] }]
      : []),
  ];
  const answer = parseCrmAnswer(
    'hubspot',
    AssociationBatch,
    await runner.run('association_create', priority, () => api.createAssociations('contacts', 'companies', inputs)),
    'association_create',
  );
  const made = new Set(answer.results.map((r) => r.toObjectId));
  if (!made.has(next)) return 'failed: new_company_not_linked';
  if (previous && !made.has(previous)) return 'failed: former_employer_not_labelled';
  return 'done';
}

export async function contactAtNewEmployer(
  { runner, api, search }: HubspotCalls,
  change: JobChangeAct,
  priority: Priority,
): Promise<ActionOutcome> {
  const person = change.newContact;
  if (!person) return 'skipped: the partner knows no work e-mail at the new employer';
  const found = await search(
    'contacts',
    {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: person.email }] }],
      properties: ['email'],
      limit: 1,
    },
    priority,
  );
  if ((found.total ?? 0) > 0 || found.results.length > 0) return 'skipped: a contact has the work e-mail already';
  const created = await runner.run('contact_create', priority, () =>
    api.create('contacts', {
      properties: {
        email: person.email,
        ...(person.firstName ? { firstname: person.firstName } : {}),
        ...(person.lastName ? { lastname: person.lastName } : {}),
        ...(change.newTitle ? { jobtitle: change.newTitle } : {}),
      },
      associations: [],
    }),
  );
  const contact = parseCrmAnswer('hubspot', HubspotObject, created, 'contact_create');
  if (change.newCompanyId) {
    await runner.run('association_create', priority, () =>
      api.createAssociations('contacts', 'companies', [
        { from: { id: contact.id }, to: { id: change.newCompanyId! }, types: [UNLABELED, PRIMARY] },
      ]),
    );
  }
  return 'done';
}
