/**
 * Salesforce's job-change actions that follow the person to the new employer. The Contact's AccountId
 * becomes the new employer's Account; the Account left is kept as an inactive AccountContactRelation
 * ended today where the org relates contacts to multiple accounts (the object is describable), else in
 * CE_Previous_Account__c on the Contact. Salesforce removes the direct relationship with the old Account
 * when AccountId changes, so the relationship is made after the change; one that is already there (an
 * indirect one an admin made) is ended instead. And, when asked, a new Contact at the new employer, after
 * a query shows no Contact or Lead has the address. The record's Email is never written.
 */
import { CrmError, type CrmConnector, type JobChangeAct, type PropertySpec } from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import type { Priority } from '../../src/core/limiter.js';
import { toId18 } from './ids.js';
import type { SalesforceSession } from './session.js';
import { SaveResults } from './wire-schemas.js';

/** Where the Account left is kept in an org without AccountContactRelation. */
export const SALESFORCE_PREVIOUS_ACCOUNT_FIELD: PropertySpec = {
  name: 'CE_Previous_Account__c',
  label: 'Previous Account',
  type: 'string',
  maxLength: 18,
  description: 'The Account id of the employer before the last job change crm-enrich saw',
};

export interface EmployerDeps {
  session: SalesforceSession;
  writeRecords: CrmConnector['writeRecords'];
  findRecords: NonNullable<CrmConnector['findRecords']>;
  createRecords: NonNullable<CrmConnector['createRecords']>;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export function salesforceEmployerActions({ session, writeRecords, findRecords, createRecords }: EmployerDeps) {
  let relations: Promise<boolean> | undefined;

  /** Whether the org has Contacts to Multiple Accounts: asked once, by describing the object. */
  function hasRelations(priority: Priority): Promise<boolean> {
    relations ??= session
      .call('describe', priority, async (c) => c.sobject('AccountContactRelation').describe())
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof CrmError && error.code === 'not_found') return false;
          relations = undefined;
          throw error;
        },
      );
    return relations;
  }

  async function endRelation(contact: string, account: string, ended: Date, priority: Priority): Promise<string> {
    const contactId = toId18(contact);
    const accountId = toId18(account);
    if (!contactId || !accountId) return 'failed: MALFORMED_ID';
    const created = parseCrmAnswer(
      'salesforce',
      SaveResults,
      // The collection call: a refused save comes back as a result with its code, not as a thrown error.
      await session.call('acr.create', priority, async (c) =>
        c
          .sobject('AccountContactRelation')
          .create([{ AccountId: accountId, ContactId: contactId, IsActive: false, EndDate: day(ended) }], {
            allOrNone: false,
          }),
      ),
      'acr.create',
    )[0];
    if (created?.success) return 'done';
    const code = created?.errors?.[0]?.statusCode ?? created?.errors?.[0]?.errorCode;
    if (code !== 'DUPLICATE_VALUE') return `failed: ${code ?? 'not_related'}`;
    // An indirect relationship was there already: it is ended rather than made twice.
    const found = (await session.call('acr.query', priority, async (c) =>
      c.query(`SELECT Id FROM AccountContactRelation WHERE ContactId = '${contactId}' AND AccountId = '${accountId}'`),
    )) as { records: { Id: string }[] };
    const id = found.records[0]?.Id;
    if (!id) return 'failed: not_related';
    const [updated] = parseCrmAnswer(
      'salesforce',
      SaveResults,
      await session.call('acr.update', priority, async (c) =>
        c
          .sobject('AccountContactRelation')
          .update([{ Id: id, IsActive: false, EndDate: day(ended) }], { allOrNone: false }),
      ),
      'acr.update',
    );
    const error = updated?.errors?.[0];
    return updated?.success ? 'done' : `failed: ${error?.statusCode ?? error?.errorCode ?? 'not_updated'}`;
  }

  return {
    async moveToNewEmployer(objectType: string, change: JobChangeAct, priority: Priority): Promise<string> {
      if (objectType !== 'Contact') return 'skipped: a Lead has no Account';
      const next = change.newCompanyId;
      if (!next) return `skipped: ${change.newCompanyReason ?? 'no Account for the new employer'}`;
      const previous = change.previousCompanyId && change.previousCompanyId !== next ? change.previousCompanyId : null;
      const related = previous ? await hasRelations(priority) : false;
      const properties: Record<string, string> = { AccountId: next };
      if (previous && !related) properties[SALESFORCE_PREVIOUS_ACCOUNT_FIELD.name] = previous;
      const [written] = await writeRecords('Contact', [{ id: change.recordId, properties }], { priority });
      if (!written?.ok) return `failed: ${written?.error?.code ?? 'not_written'}`;
      return previous && related ? endRelation(change.recordId, previous, change.detectedAt, priority) : 'done';
    },

    async contactAtNewEmployer(change: JobChangeAct, priority: Priority): Promise<string> {
      const person = change.newContact;
      if (!person) return 'skipped: the partner knows no work e-mail at the new employer';
      if (!person.lastName) return 'skipped: the partner gives no last name, which a Contact needs';
      for (const type of ['Contact', 'Lead']) {
        const holders = await findRecords(type, [{ property: 'Email', values: [person.email] }], [], { priority });
        if (holders.length) return `skipped: a ${type} has the work e-mail already`;
      }
      const [created] = await createRecords(
        'Contact',
        [
          {
            LastName: person.lastName,
            Email: person.email,
            ...(person.firstName ? { FirstName: person.firstName } : {}),
            ...(change.newTitle ? { Title: change.newTitle.slice(0, 128) } : {}),
            ...(change.newCompanyId ? { AccountId: change.newCompanyId } : {}),
          },
        ],
        { priority },
      );
      return created?.ok ? 'done' : `failed: ${created?.error?.code ?? 'not_created'}`;
    },
  };
}
