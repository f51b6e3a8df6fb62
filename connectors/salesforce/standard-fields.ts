/**
 * Lead, Contact and Account standard fields in the shape `GET /sobjects/<type>/describe` returns them,
 * with Salesforce's API names, types, lengths and standard picklist values. The sandbox serves these,
 * and tests of `salesforceDescribeToCrm` read them as a real org's describe answer.
 */

export type DescribeFieldType =
  | 'id'
  | 'string'
  | 'email'
  | 'phone'
  | 'url'
  | 'picklist'
  | 'int'
  | 'double'
  | 'currency'
  | 'textarea'
  | 'date'
  | 'datetime'
  | 'boolean'
  | 'reference';

export interface PicklistValue {
  active: boolean;
  label: string;
  value: string;
  defaultValue: boolean;
}

export interface DescribeField {
  name: string;
  type: DescribeFieldType;
  label: string;
  /** Maximum characters for text-like fields; 0 for the others, as Salesforce reports it. */
  length: number;
  updateable: boolean;
  createable: boolean;
  nillable: boolean;
  custom: boolean;
  picklistValues: PicklistValue[];
  restrictedPicklist: boolean;
  precision: number;
  scale: number;
  digits: number;
  referenceTo: string[];
}

export type SandboxObjectType = 'Lead' | 'Contact' | 'Account' | 'Task' | 'AccountContactRelation';
export const SANDBOX_OBJECT_TYPES: readonly SandboxObjectType[] = [
  'Lead',
  'Contact',
  'Account',
  'Task',
  'AccountContactRelation',
];

type FieldInit = Partial<DescribeField> & Pick<DescribeField, 'name' | 'type' | 'label'>;

/** Fills the attributes Salesforce always reports, so each definition below states only what differs. */
export function describeField(init: FieldInit): DescribeField {
  const textLike = ['string', 'email', 'phone', 'url', 'picklist', 'textarea', 'id', 'reference'].includes(init.type);
  return {
    length: textLike ? 255 : 0,
    updateable: true,
    createable: true,
    nillable: true,
    custom: init.name.endsWith('__c'),
    picklistValues: [],
    restrictedPicklist: false,
    precision: 0,
    scale: 0,
    digits: 0,
    referenceTo: [],
    ...init,
  };
}

const picklist = (values: string[]): PicklistValue[] =>
  values.map((value) => ({ active: true, label: value, value, defaultValue: false }));

/** Salesforce's standard Industry values (Setup > Object Manager > Account > Industry). */
export const INDUSTRY_VALUES = [
  'Agriculture',
  'Apparel',
  'Banking',
  'Biotechnology',
  'Chemicals',
  'Communications',
  'Construction',
  'Consulting',
  'Education',
  'Electronics',
  'Energy',
  'Engineering',
  'Entertainment',
  'Environmental',
  'Finance',
  'Food & Beverage',
  'Government',
  'Healthcare',
  'Hospitality',
  'Insurance',
  'Machinery',
  'Manufacturing',
  'Media',
  'Not For Profit',
  'Other',
  'Recreation',
  'Retail',
  'Shipping',
  'Technology',
  'Telecommunications',
  'Transportation',
  'Utilities',
];
const LEAD_SOURCE_VALUES = ['Web', 'Phone Inquiry', 'Partner Referral', 'Purchased List', 'Other'];
const RATING_VALUES = ['Hot', 'Warm', 'Cold'];
const SALUTATION_VALUES = ['Mr.', 'Ms.', 'Mrs.', 'Dr.', 'Prof.'];
const LEAD_STATUS_VALUES = [
  'Open - Not Contacted',
  'Working - Contacted',
  'Closed - Converted',
  'Closed - Not Converted',
];
const ACCOUNT_TYPE_VALUES = [
  'Prospect',
  'Customer - Direct',
  'Customer - Channel',
  'Channel Partner / Reseller',
  'Installation Partner',
  'Technology Partner',
  'Other',
];
const OWNERSHIP_VALUES = ['Public', 'Private', 'Subsidiary', 'Other'];

const systemFields = (): DescribeField[] => [
  describeField({
    name: 'Id',
    type: 'id',
    label: 'Record ID',
    length: 18,
    updateable: false,
    createable: false,
    nillable: false,
  }),
  describeField({
    name: 'IsDeleted',
    type: 'boolean',
    label: 'Deleted',
    updateable: false,
    createable: false,
    nillable: false,
  }),
  describeField({
    name: 'OwnerId',
    type: 'reference',
    label: 'Owner ID',
    length: 18,
    referenceTo: ['User'],
    nillable: false,
  }),
  describeField({
    name: 'CreatedDate',
    type: 'datetime',
    label: 'Created Date',
    updateable: false,
    createable: false,
    nillable: false,
  }),
  describeField({
    name: 'CreatedById',
    type: 'reference',
    label: 'Created By ID',
    length: 18,
    updateable: false,
    createable: false,
    nillable: false,
    referenceTo: ['User'],
  }),
  describeField({
    name: 'LastModifiedDate',
    type: 'datetime',
    label: 'Last Modified Date',
    updateable: false,
    createable: false,
    nillable: false,
  }),
  describeField({
    name: 'LastModifiedById',
    type: 'reference',
    label: 'Last Modified By ID',
    length: 18,
    updateable: false,
    createable: false,
    nillable: false,
    referenceTo: ['User'],
  }),
  describeField({
    name: 'SystemModstamp',
    type: 'datetime',
    label: 'System Modstamp',
    updateable: false,
    createable: false,
    nillable: false,
  }),
];

const person = (): DescribeField[] => [
  describeField({
    name: 'Salutation',
    type: 'picklist',
    label: 'Salutation',
    length: 40,
    picklistValues: picklist(SALUTATION_VALUES),
  }),
  describeField({ name: 'FirstName', type: 'string', label: 'First Name', length: 40 }),
  describeField({ name: 'LastName', type: 'string', label: 'Last Name', length: 80, nillable: false }),
  describeField({
    name: 'Name',
    type: 'string',
    label: 'Full Name',
    length: 121,
    updateable: false,
    createable: false,
    nillable: false,
  }),
  describeField({ name: 'Title', type: 'string', label: 'Title', length: 128 }),
  describeField({ name: 'Email', type: 'email', label: 'Email', length: 80 }),
  describeField({ name: 'Phone', type: 'phone', label: 'Phone', length: 40 }),
  describeField({ name: 'MobilePhone', type: 'phone', label: 'Mobile Phone', length: 40 }),
  describeField({ name: 'Fax', type: 'phone', label: 'Fax', length: 40 }),
  describeField({
    name: 'LeadSource',
    type: 'picklist',
    label: 'Lead Source',
    length: 255,
    picklistValues: picklist(LEAD_SOURCE_VALUES),
  }),
  describeField({ name: 'Description', type: 'textarea', label: 'Description', length: 32000 }),
];

const address = (prefix: string, label: string): DescribeField[] => [
  describeField({ name: `${prefix}Street`, type: 'textarea', label: `${label} Street`, length: 255 }),
  describeField({ name: `${prefix}City`, type: 'string', label: `${label} City`, length: 40 }),
  describeField({ name: `${prefix}State`, type: 'string', label: `${label} State/Province`, length: 80 }),
  describeField({ name: `${prefix}PostalCode`, type: 'string', label: `${label} Zip/Postal Code`, length: 20 }),
  describeField({ name: `${prefix}Country`, type: 'string', label: `${label} Country`, length: 80 }),
];

const firmographics = (): DescribeField[] => [
  describeField({ name: 'Website', type: 'url', label: 'Website', length: 255 }),
  describeField({
    name: 'Industry',
    type: 'picklist',
    label: 'Industry',
    length: 255,
    picklistValues: picklist(INDUSTRY_VALUES),
  }),
  describeField({ name: 'NumberOfEmployees', type: 'int', label: 'Employees', digits: 8 }),
  describeField({ name: 'AnnualRevenue', type: 'currency', label: 'Annual Revenue', precision: 18, scale: 0 }),
  describeField({
    name: 'Rating',
    type: 'picklist',
    label: 'Rating',
    length: 255,
    picklistValues: picklist(RATING_VALUES),
  }),
];

function leadFields(): DescribeField[] {
  return [
    ...systemFields(),
    ...person(),
    describeField({ name: 'Company', type: 'string', label: 'Company', length: 255, nillable: false }),
    ...address('', ''),
    ...firmographics(),
    describeField({
      name: 'Status',
      type: 'picklist',
      label: 'Status',
      length: 255,
      nillable: false,
      picklistValues: picklist(LEAD_STATUS_VALUES),
      restrictedPicklist: true,
    }),
    describeField({ name: 'IsConverted', type: 'boolean', label: 'Converted', updateable: false, nillable: false }),
    describeField({
      name: 'ConvertedDate',
      type: 'date',
      label: 'Converted Date',
      updateable: false,
      createable: false,
    }),
    describeField({
      name: 'LastActivityDate',
      type: 'date',
      label: 'Last Activity',
      updateable: false,
      createable: false,
    }),
  ].map(trimLabel);
}

function contactFields(): DescribeField[] {
  return [
    ...systemFields(),
    describeField({ name: 'AccountId', type: 'reference', label: 'Account ID', length: 18, referenceTo: ['Account'] }),
    ...person(),
    describeField({ name: 'Department', type: 'string', label: 'Department', length: 80 }),
    describeField({ name: 'HomePhone', type: 'phone', label: 'Home Phone', length: 40 }),
    describeField({ name: 'OtherPhone', type: 'phone', label: 'Other Phone', length: 40 }),
    describeField({ name: 'AssistantName', type: 'string', label: "Assistant's Name", length: 40 }),
    describeField({ name: 'AssistantPhone', type: 'phone', label: 'Asst. Phone', length: 40 }),
    describeField({ name: 'Birthdate', type: 'date', label: 'Birthdate' }),
    ...address('Mailing', 'Mailing'),
    ...address('Other', 'Other'),
    describeField({
      name: 'LastActivityDate',
      type: 'date',
      label: 'Last Activity',
      updateable: false,
      createable: false,
    }),
  ];
}

function accountFields(): DescribeField[] {
  return [
    ...systemFields(),
    describeField({ name: 'Name', type: 'string', label: 'Account Name', length: 255, nillable: false }),
    describeField({
      name: 'Type',
      type: 'picklist',
      label: 'Account Type',
      length: 255,
      picklistValues: picklist(ACCOUNT_TYPE_VALUES),
    }),
    describeField({
      name: 'ParentId',
      type: 'reference',
      label: 'Parent Account ID',
      length: 18,
      referenceTo: ['Account'],
    }),
    ...address('Billing', 'Billing'),
    ...address('Shipping', 'Shipping'),
    describeField({ name: 'Phone', type: 'phone', label: 'Account Phone', length: 40 }),
    describeField({ name: 'Fax', type: 'phone', label: 'Account Fax', length: 40 }),
    describeField({ name: 'AccountNumber', type: 'string', label: 'Account Number', length: 40 }),
    ...firmographics(),
    describeField({ name: 'Sic', type: 'string', label: 'SIC Code', length: 20 }),
    describeField({ name: 'SicDesc', type: 'string', label: 'SIC Description', length: 80 }),
    describeField({
      name: 'Ownership',
      type: 'picklist',
      label: 'Ownership',
      length: 255,
      picklistValues: picklist(OWNERSHIP_VALUES),
    }),
    describeField({ name: 'TickerSymbol', type: 'string', label: 'Ticker Symbol', length: 20 }),
    describeField({ name: 'Site', type: 'string', label: 'Account Site', length: 80 }),
    describeField({
      name: 'AccountSource',
      type: 'picklist',
      label: 'Account Source',
      length: 255,
      picklistValues: picklist(LEAD_SOURCE_VALUES),
    }),
    describeField({ name: 'Description', type: 'textarea', label: 'Account Description', length: 32000 }),
    describeField({
      name: 'LastActivityDate',
      type: 'date',
      label: 'Last Activity',
      updateable: false,
      createable: false,
    }),
  ];
}

/** Lead's address fields carry no prefix, so their labels must not start with a space. */
function trimLabel(field: DescribeField): DescribeField {
  return { ...field, label: field.label.trim() };
}

/** A fresh copy of one object's standard fields (callers may add custom fields to it). */
export function standardFields(objectType: SandboxObjectType): DescribeField[] {
  if (objectType === 'Lead') return leadFields();
  if (objectType === 'Contact') return contactFields();
  if (objectType === 'Task') return taskFields();
  if (objectType === 'AccountContactRelation') return accountContactRelationFields();
  return accountFields();
}

const ACR_ROLE_VALUES = [
  'Business User',
  'Decision Maker',
  'Economic Buyer',
  'Economic Decision Maker',
  'Evaluator',
  'Executive Sponsor',
  'Influencer',
  'Technical Buyer',
  'Other',
];

/**
 * A contact's relationship with an account (orgs with Contacts to Multiple Accounts): the account and
 * contact are set at creation only; IsDirect (the contact's primary account) is Salesforce's to set.
 */
function accountContactRelationFields(): DescribeField[] {
  return [
    ...systemFields(),
    describeField({
      name: 'AccountId',
      type: 'reference',
      label: 'Account ID',
      length: 18,
      updateable: false,
      nillable: false,
      referenceTo: ['Account'],
    }),
    describeField({
      name: 'ContactId',
      type: 'reference',
      label: 'Contact ID',
      length: 18,
      updateable: false,
      nillable: false,
      referenceTo: ['Contact'],
    }),
    describeField({ name: 'IsActive', type: 'boolean', label: 'Active', nillable: false }),
    describeField({
      name: 'IsDirect',
      type: 'boolean',
      label: 'Direct',
      updateable: false,
      createable: false,
      nillable: false,
    }),
    describeField({
      name: 'Roles',
      type: 'picklist',
      label: 'Roles',
      length: 4099,
      picklistValues: picklist(ACR_ROLE_VALUES),
    }),
    describeField({ name: 'StartDate', type: 'date', label: 'Start Date' }),
    describeField({ name: 'EndDate', type: 'date', label: 'End Date' }),
  ];
}

const TASK_STATUS_VALUES = ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'];
const TASK_PRIORITY_VALUES = ['High', 'Normal', 'Low'];

/**
 * The Task fields a to-do for a record's owner needs (crm-enrich's job-change action); WhoId names a Contact or Lead.
 */
function taskFields(): DescribeField[] {
  return [
    ...systemFields(),
    describeField({ name: 'Subject', type: 'string', label: 'Subject', length: 255 }),
    describeField({ name: 'Description', type: 'textarea', label: 'Description', length: 32000 }),
    describeField({ name: 'WhoId', type: 'reference', label: 'Name ID', length: 18, referenceTo: ['Contact', 'Lead'] }),
    describeField({ name: 'ActivityDate', type: 'date', label: 'Due Date Only' }),
    describeField({
      name: 'Status',
      type: 'picklist',
      label: 'Status',
      length: 255,
      nillable: false,
      picklistValues: picklist(TASK_STATUS_VALUES),
      restrictedPicklist: true,
    }),
    describeField({
      name: 'Priority',
      type: 'picklist',
      label: 'Priority',
      length: 255,
      nillable: false,
      picklistValues: picklist(TASK_PRIORITY_VALUES),
      restrictedPicklist: true,
    }),
  ];
}

export const OBJECT_LABELS: Record<SandboxObjectType, { label: string; labelPlural: string; keyPrefix: string }> = {
  Lead: { label: 'Lead', labelPlural: 'Leads', keyPrefix: '00Q' },
  Contact: { label: 'Contact', labelPlural: 'Contacts', keyPrefix: '003' },
  Account: { label: 'Account', labelPlural: 'Accounts', keyPrefix: '001' },
  Task: { label: 'Task', labelPlural: 'Tasks', keyPrefix: '00T' },
  AccountContactRelation: {
    label: 'Account Contact Relationship',
    labelPlural: 'Account Contact Relationships',
    keyPrefix: '07k',
  },
};
