/**
 * HubSpot's job-change actions (issue 33): the contact's job-change properties, a task for the
 * contact's owner associated with the contact (tasks API v3, task-to-contact type 204), the new employer
 * made primary with the old one labelled "Former employee", and a new contact at the new employer. The
 * contact's e-mail is never written here.
 */
import type {
  CallOptions,
  CrmConnector,
  JobChangeAct,
  JobChangeActionSwitches,
  PropertySpec,
} from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { AppError } from '../../src/core/errors.js';
import { jobChangeSubject } from '../../src/core/job-change-subject.js';
import { formerEmployeeLabel } from './former-employee-label.js';
import { contactAtNewEmployer, moveToNewEmployer } from './job-change-employer.js';
import { apiType, toRecord, type HubspotCalls } from './sdk-objects.js';
import { HubspotObject } from './wire-schemas.js';

/** HubSpot-defined association type of a task to a contact. */
const TASK_TO_CONTACT = 204;

export const HUBSPOT_JOB_CHANGE_PROPERTIES: readonly PropertySpec[] = [
  {
    name: 'crm_enrich_job_change_at',
    label: 'Job change detected at',
    type: 'datetime',
    description: 'When crm-enrich saw this person move to a new employer or role',
  },
  {
    name: 'crm_enrich_previous_company',
    label: 'Previous company',
    type: 'string',
    description: 'The employer before the last job change crm-enrich saw',
  },
  {
    name: 'crm_enrich_previous_title',
    label: 'Previous title',
    type: 'string',
    description: 'The job title before the last job change crm-enrich saw',
  },
];

/** The error's stable code only: a CRM's message may quote the record's values. */
const failure = (error: unknown) => `failed: ${error instanceof AppError ? error.code : 'error'}`;

export function hubspotJobChangeActions(
  calls: HubspotCalls,
): Required<Pick<CrmConnector, 'applyJobChange' | 'jobChangeProperties' | 'provisionJobChangeSchema'>> {
  const { runner, api } = calls;
  const label = formerEmployeeLabel(calls);
  return {
    jobChangeProperties: { contact: HUBSPOT_JOB_CHANGE_PROPERTIES },

    async provisionJobChangeSchema() {
      return [await label.provision()];
    },

    async applyJobChange(
      objectType: string,
      change: JobChangeAct,
      actions: JobChangeActionSwitches,
      options?: CallOptions,
    ) {
      if (apiType(objectType) !== 'contacts') return {};
      const priority = options?.priority ?? 'bulk';
      const done: Record<string, string> = {};
      if (actions.properties) {
        const properties = {
          crm_enrich_job_change_at: change.detectedAt.toISOString(),
          crm_enrich_previous_company: change.from.name ?? change.from.domain ?? '',
          crm_enrich_previous_title: change.oldTitle ?? '',
        };
        try {
          await runner.run('contact_update', priority, () => api.update('contacts', change.recordId, properties));
          done.properties = 'done';
        } catch (error) {
          done.properties = failure(error);
        }
      }
      if (actions.task) {
        try {
          const read = await runner.run('contact_read', priority, () =>
            api.read('contacts', change.recordId, ['firstname', 'lastname', 'email', 'hubspot_owner_id']),
          );
          const p = toRecord(parseCrmAnswer('hubspot', HubspotObject, read, 'contact_read')).properties;
          const name = [p.firstname, p.lastname].filter(Boolean).join(' ') || `Contact ${change.recordId}`;
          const subject = jobChangeSubject(name, change);
          await runner.run('task_create', priority, () =>
            api.create('tasks', {
              properties: {
                hs_timestamp: change.detectedAt.toISOString(),
                hs_task_subject: subject,
                hs_task_body: `${subject}. Detected by crm-enrich on ${change.detectedAt.toISOString().slice(0, 10)}.`,
                hs_task_status: 'NOT_STARTED',
                hs_task_priority: 'MEDIUM',
                hs_task_type: 'TODO',
                ...(p.hubspot_owner_id ? { hubspot_owner_id: p.hubspot_owner_id } : {}),
              },
              associations: [
                {
                  to: { id: change.recordId },
                  types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: TASK_TO_CONTACT }],
                },
              ],
            }),
          );
          done.task = 'done';
        } catch (error) {
          done.task = failure(error);
        }
      }
      if (actions.employer) {
        try {
          const typeId = change.previousCompanyId ? await label.typeId(priority) : undefined;
          done.employer = await moveToNewEmployer(calls, typeId, change, priority);
        } catch (error) {
          done.employer = failure(error);
        }
      }
      if (actions.newContact) {
        try {
          done.newContact = await contactAtNewEmployer(calls, change, priority);
        } catch (error) {
          done.newContact = failure(error);
        }
      }
      return done;
    },
  };
}
