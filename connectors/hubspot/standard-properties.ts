/**
 * HubSpot's standard contact and company properties, in HubSpot's own wire shape, with the real
 * internal names. Only the properties an enrichment service reads or writes, plus the read-only ones
 * HubSpot maintains, are listed; a real portal has hundreds more.
 */
import type { HubspotProperty, HubspotPropertyOption } from './property-wire.js';
import { INDUSTRY_OPTIONS } from './industry-options.js';

const DEFINED_AT = '2019-08-06T02:41:52.000Z';

interface Extra {
  description?: string;
  options?: [string, string][];
  readOnly?: boolean;
  calculated?: boolean;
  unique?: boolean;
}

function options(pairs: [string, string][]): HubspotPropertyOption[] {
  return pairs.map(([value, label], i) => ({ label, value, description: '', displayOrder: i, hidden: false }));
}

function prop(
  name: string,
  label: string,
  type: string,
  fieldType: string,
  groupName: string,
  extra: Extra = {},
): HubspotProperty {
  const readOnly = extra.readOnly ?? false;
  return {
    updatedAt: DEFINED_AT,
    createdAt: DEFINED_AT,
    name,
    label,
    type,
    fieldType,
    description: extra.description ?? '',
    groupName,
    options: extra.options ? options(extra.options) : [],
    displayOrder: -1,
    calculated: extra.calculated ?? false,
    externalOptions: false,
    hasUniqueValue: extra.unique ?? false,
    hidden: false,
    hubspotDefined: true,
    modificationMetadata: { archivable: false, readOnlyDefinition: true, readOnlyValue: readOnly },
    formField: !readOnly,
  };
}

const LIFECYCLE_STAGES: [string, string][] = [
  ['subscriber', 'Subscriber'],
  ['lead', 'Lead'],
  ['marketingqualifiedlead', 'Marketing Qualified Lead'],
  ['salesqualifiedlead', 'Sales Qualified Lead'],
  ['opportunity', 'Opportunity'],
  ['customer', 'Customer'],
  ['evangelist', 'Evangelist'],
  ['other', 'Other'],
];

const LEAD_STATUSES: [string, string][] = [
  ['NEW', 'New'],
  ['OPEN', 'Open'],
  ['IN_PROGRESS', 'In Progress'],
  ['OPEN_DEAL', 'Open Deal'],
  ['UNQUALIFIED', 'Unqualified'],
  ['ATTEMPTED_TO_CONTACT', 'Attempted to Contact'],
  ['CONNECTED', 'Connected'],
  ['BAD_TIMING', 'Bad Timing'],
];

const CONTACT_EMPLOYEE_RANGES: [string, string][] = [
  ['1-5', '1-5'],
  ['5-25', '5-25'],
  ['25-50', '25-50'],
  ['50-100', '50-100'],
  ['100-500', '100-500'],
  ['500-1000', '500-1000'],
  ['1000+', '1000+'],
];

const COMPANY_TYPES: [string, string][] = [
  ['PROSPECT', 'Prospect'],
  ['PARTNER', 'Partner'],
  ['RESELLER', 'Reseller'],
  ['VENDOR', 'Vendor'],
  ['OTHER', 'Other'],
];

const CI = 'contactinformation';
const SOCIAL = 'socialmediainformation';

export const STANDARD_CONTACT_PROPERTIES: HubspotProperty[] = [
  prop('email', 'Email', 'string', 'text', CI, { description: "A contact's email address", unique: true }),
  prop('firstname', 'First Name', 'string', 'text', CI, { description: "A contact's first name" }),
  prop('lastname', 'Last Name', 'string', 'text', CI, { description: "A contact's last name" }),
  prop('jobtitle', 'Job Title', 'string', 'text', CI, { description: "A contact's job title" }),
  prop('hs_seniority', 'Seniority', 'string', 'text', CI),
  prop('hs_role', 'Employment Role', 'string', 'text', CI),
  prop('hs_sub_role', 'Employment Sub Role', 'string', 'text', CI),
  prop('phone', 'Phone Number', 'string', 'phonenumber', CI, { description: "A contact's primary phone number" }),
  prop('mobilephone', 'Mobile Phone Number', 'string', 'phonenumber', CI),
  prop('fax', 'Fax Number', 'string', 'text', CI),
  prop('company', 'Company Name', 'string', 'text', CI, { description: "Name of the contact's company" }),
  prop('website', 'Website URL', 'string', 'text', CI),
  prop('industry', 'Industry', 'string', 'text', CI, { description: 'The industry a contact is in' }),
  prop('numemployees', 'Number of Employees', 'enumeration', 'select', CI, { options: CONTACT_EMPLOYEE_RANGES }),
  prop('annualrevenue', 'Annual Revenue', 'string', 'text', CI),
  prop('address', 'Street Address', 'string', 'text', CI),
  prop('city', 'City', 'string', 'text', CI),
  prop('state', 'State/Region', 'string', 'text', CI),
  prop('zip', 'Postal Code', 'string', 'text', CI),
  prop('country', 'Country/Region', 'string', 'text', CI),
  prop('hs_linkedin_url', 'LinkedIn URL', 'string', 'text', SOCIAL),
  prop('linkedinbio', 'LinkedIn Bio', 'string', 'text', SOCIAL),
  prop('twitterhandle', 'Twitter Username', 'string', 'text', SOCIAL),
  prop('lifecyclestage', 'Lifecycle Stage', 'enumeration', 'radio', CI, { options: LIFECYCLE_STAGES }),
  prop('hs_lead_status', 'Lead Status', 'enumeration', 'radio', 'sales_properties', { options: LEAD_STATUSES }),
  prop('hubspot_owner_id', 'Contact owner', 'enumeration', 'select', 'sales_properties'),
  prop('associatedcompanyid', 'Primary Associated Company ID', 'number', 'number', CI, { readOnly: true }),
  prop('hs_email_domain', 'Email Domain', 'string', 'text', 'emailinformation', { readOnly: true, calculated: true }),
  prop('hs_object_id', 'Record ID', 'number', 'number', CI, { readOnly: true, unique: true }),
  prop('createdate', 'Create Date', 'datetime', 'date', CI, { readOnly: true }),
  prop('lastmodifieddate', 'Last Modified Date', 'datetime', 'date', CI, { readOnly: true }),
  prop('hs_lastmodifieddate', 'Object last modified date/time', 'datetime', 'date', CI, { readOnly: true }),
];

const CO = 'companyinformation';

export const STANDARD_COMPANY_PROPERTIES: HubspotProperty[] = [
  prop('name', 'Company name', 'string', 'text', CO, { description: 'The name of the company or organization.' }),
  prop('domain', 'Company Domain Name', 'string', 'text', CO, { description: 'The domain name of the company.' }),
  prop('website', 'Website URL', 'string', 'text', CO),
  prop('phone', 'Phone Number', 'string', 'phonenumber', CO),
  prop('address', 'Street Address', 'string', 'text', CO),
  prop('address2', 'Street Address 2', 'string', 'text', CO),
  prop('city', 'City', 'string', 'text', CO),
  prop('state', 'State/Region', 'string', 'text', CO),
  prop('zip', 'Postal Code', 'string', 'text', CO),
  prop('country', 'Country/Region', 'string', 'text', CO),
  prop('industry', 'Industry', 'enumeration', 'select', CO, { options: INDUSTRY_OPTIONS }),
  prop('numberofemployees', 'Number of Employees', 'number', 'number', CO),
  prop('annualrevenue', 'Annual Revenue', 'number', 'number', CO),
  prop('founded_year', 'Year Founded', 'string', 'text', CO),
  prop('description', 'Description', 'string', 'textarea', CO),
  prop('is_public', 'Is Public', 'bool', 'booleancheckbox', CO, {
    options: [
      ['true', 'True'],
      ['false', 'False'],
    ],
  }),
  prop('type', 'Type', 'enumeration', 'select', CO, { options: COMPANY_TYPES }),
  prop('timezone', 'Time Zone', 'string', 'text', CO),
  prop('linkedin_company_page', 'LinkedIn Company Page', 'string', 'text', SOCIAL),
  prop('linkedinbio', 'LinkedIn Bio', 'string', 'textarea', SOCIAL),
  prop('twitterhandle', 'Twitter Handle', 'string', 'text', SOCIAL),
  prop('facebook_company_page', 'Facebook Company Page', 'string', 'text', SOCIAL),
  prop('lifecyclestage', 'Lifecycle Stage', 'enumeration', 'radio', CO, { options: LIFECYCLE_STAGES }),
  prop('hubspot_owner_id', 'Company owner', 'enumeration', 'select', CO),
  prop('hs_object_id', 'Record ID', 'number', 'number', CO, { readOnly: true, unique: true }),
  prop('createdate', 'Create Date', 'datetime', 'date', CO, { readOnly: true }),
  prop('hs_lastmodifieddate', 'Last Modified Date', 'datetime', 'date', CO, { readOnly: true }),
];

/** The standard properties of an object type (`contacts` / `companies`, as the API's path names them). */
export function standardProperties(objectType: 'contacts' | 'companies'): HubspotProperty[] {
  return objectType === 'contacts' ? STANDARD_CONTACT_PROPERTIES : STANDARD_COMPANY_PROPERTIES;
}
