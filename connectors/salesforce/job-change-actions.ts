/**
 * Salesforce's job-change actions (issue 33): the record's CE_* job-change fields, a Task for the
 * record's owner with WhoId the Contact or Lead, the Contact moved to the new employer's Account (the old
 * one kept as an AccountContactRelation or in a field), and a new Contact at the new employer. The
 * record's Email is never written here. The fields are custom fields `crm-enrich mappings provision`
 * creates through the Metadata API.
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
import { SALESFORCE_PREVIOUS_ACCOUNT_FIELD, salesforceEmployerActions } from './job-change-employer.js';
import type { SalesforceSession } from './session.js';
import { SaveResults } from './wire-schemas.js';

/** The custom fields the `properties` action writes, on Contact and Lead. */
export const SALESFORCE_JOB_CHANGE_FIELDS: readonly PropertySpec[] = [
  {
    name: 'CE_Job_Change_At__c',
    label: 'Job Change At',
    type: 'datetime',
    description: 'When crm-enrich saw this person move to a new employer or role',
  },
  {
    name: 'CE_Previous_Company__c',
    label: 'Previous Company',
    type: 'string',
    maxLength: 255,
    description: 'The employer before the last job change crm-enrich saw',
  },
  {
    name: 'CE_Previous_Title__c',
    label: 'Previous Title',
    type: 'string',
    maxLength: 255,
    description: 'The job title before the last job change crm-enrich saw',
  },
];

/** The error's stable code only: a CRM's message may quote the record's values. */
const failure = (error: unknown) => `failed: ${error instanceof AppError ? error.code : 'error'}`;

interface Deps {
  session: SalesforceSession;
  readRecords: CrmConnector['readRecords'];
  writeRecords: CrmConnector['writeRecords'];
  findRecords: NonNullable<CrmConnector['findRecords']>;
  createRecords: NonNullable<CrmConnector['createRecords']>;
}

export function salesforceJobChangeActions(
  deps: Deps,
): Required<Pick<CrmConnector, 'applyJobChange' | 'jobChangeProperties'>> {
  const { session, readRecords, writeRecords } = deps;
  const employer = salesforceEmployerActions(deps);
  return {
    jobChangeProperties: {
      Contact: [...SALESFORCE_JOB_CHANGE_FIELDS, SALESFORCE_PREVIOUS_ACCOUNT_FIELD],
      Lead: SALESFORCE_JOB_CHANGE_FIELDS,
    },

    async applyJobChange(
      objectType: string,
      change: JobChangeAct,
      actions: JobChangeActionSwitches,
      options?: CallOptions,
    ) {
      if (objectType !== 'Contact' && objectType !== 'Lead') return {};
      const priority = options?.priority ?? 'bulk';
      const done: Record<string, string> = {};
      if (actions.properties) {
        const properties = {
          CE_Job_Change_At__c: change.detectedAt.toISOString(),
          CE_Previous_Company__c: (change.from.name ?? change.from.domain ?? '').slice(0, 255),
          CE_Previous_Title__c: (change.oldTitle ?? '').slice(0, 255),
        };
        try {
          const [result] = await writeRecords(objectType, [{ id: change.recordId, properties }], { priority });
          done.properties = result?.ok ? 'done' : `failed: ${result?.error?.code ?? 'not_written'}`;
        } catch (error) {
          done.properties = failure(error);
        }
      }
      if (actions.task) {
        try {
          const [record] = await readRecords(objectType, [change.recordId], ['FirstName', 'LastName', 'OwnerId'], {
            priority,
          });
          if (!record) throw new AppError('not_found', 'the record is gone', 'permanent');
          const p = record.properties;
          const subject = jobChangeSubject(
            [p.FirstName, p.LastName].filter(Boolean).join(' ') || `${objectType} ${change.recordId}`,
            change,
          );
          const task = {
            Subject: subject.slice(0, 255),
            Description: `${subject}. Detected by crm-enrich on ${change.detectedAt.toISOString().slice(0, 10)}.`,
            WhoId: record.id,
            Status: 'Not Started',
            Priority: 'Normal',
            ActivityDate: change.detectedAt.toISOString().slice(0, 10),
            ...(p.OwnerId ? { OwnerId: p.OwnerId } : {}),
          };
          const [saved] = parseCrmAnswer(
            'salesforce',
            SaveResults,
            await session.call('task.create', priority, async (c) => [await c.sobject('Task').create(task)] as unknown),
            'task.create',
          );
          done.task = saved?.success ? 'done' : `failed: ${saved?.errors?.[0]?.errorCode ?? 'not_created'}`;
        } catch (error) {
          done.task = failure(error);
        }
      }
      if (actions.employer) {
        try {
          done.employer = await employer.moveToNewEmployer(objectType, change, priority);
        } catch (error) {
          done.employer = failure(error);
        }
      }
      if (actions.newContact) {
        try {
          done.newContact = await employer.contactAtNewEmployer(change, priority);
        } catch (error) {
          done.newContact = failure(error);
        }
      }
      return done;
    },
  };
}
