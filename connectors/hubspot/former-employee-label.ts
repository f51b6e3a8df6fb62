/**
 * The "Former employee" contact-to-company association label: a user-defined label the job-change
 * `employer` action puts on the association with the company a contact left. `mappings provision`
 * creates it through the v4 association labels API; the action reads its type id once and keeps it.
 */
import type { Priority } from '../../src/core/limiter.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import type { AssociationSpec } from './hubspot-api.js';
import type { HubspotCalls } from './sdk-objects.js';
import { AssociationLabels } from './wire-schemas.js';

export const FORMER_EMPLOYEE_LABEL = { label: 'Former employee', name: 'crm_enrich_former_employee' } as const;

/** The label as an association type, for the association calls. */
export function formerEmployeeSpec(typeId: number): AssociationSpec {
  return { associationCategory: 'USER_DEFINED', associationTypeId: typeId };
}

export function formerEmployeeLabel({ runner, api }: HubspotCalls) {
  let known: number | undefined;

  async function read(priority: Priority): Promise<number | undefined> {
    const answer = await runner.run('association_labels_read', priority, () =>
      api.associationLabels('contacts', 'companies'),
    );
    return parseCrmAnswer('hubspot', AssociationLabels, answer, 'association_labels_read').results.find(
      (t) => t.category === 'USER_DEFINED' && t.label === FORMER_EMPLOYEE_LABEL.label,
    )?.typeId;
  }

  return {
    /** The label's contact-to-company type id; undefined while nobody has provisioned it (read again next time). */
    async typeId(priority: Priority): Promise<number | undefined> {
      known ??= await read(priority);
      return known;
    },

    /** Creates the label unless the portal has it; says which. */
    async provision(): Promise<string> {
      const existing = await read('interactive');
      if (existing !== undefined) {
        known = existing;
        return `association label "${FORMER_EMPLOYEE_LABEL.label}" (contact to company) already there`;
      }
      const answer = await runner.run('association_label_create', 'interactive', () =>
        api.createAssociationLabel('contacts', 'companies', {
          label: FORMER_EMPLOYEE_LABEL.label,
          name: FORMER_EMPLOYEE_LABEL.name,
        }),
      );
      const created = parseCrmAnswer('hubspot', AssociationLabels, answer, 'association_label_create');
      // The answer lists the label from both sides; the contact's side is asked for again rather than guessed.
      known = await read('interactive');
      const ids = created.results.map((t) => t.typeId).join(', ');
      return `created association label "${FORMER_EMPLOYEE_LABEL.label}" (contact to company; type ids ${ids})`;
    },
  };
}
