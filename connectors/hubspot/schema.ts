/**
 * Turns HubSpot property definitions into the CRM-neutral `CrmProperty` the mapping validator reads.
 */
import { AppError } from '../../src/core/errors.js';
import type { CrmProperty, PropertyType } from '../../src/core/connector.js';
import { HubspotPropertyListSchema, HubspotPropertySchema, type HubspotProperty } from './property-wire.js';

/** HubSpot has no e-mail or URL value types; these standard properties hold one all the same. */
const EMAIL_PROPERTIES = new Set(['email', 'work_email', 'hs_additional_emails']);
const URL_PROPERTIES = new Set(['website', 'hs_linkedin_url', 'linkedin_company_page', 'facebook_company_page']);

function propertyType(p: HubspotProperty): PropertyType {
  if (p.type === 'bool' || p.fieldType === 'booleancheckbox') return 'bool';
  switch (p.type) {
    case 'number':
      return 'number';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'enumeration':
      return 'enumeration';
    case 'phone_number':
      return 'phone';
  }
  if (p.fieldType === 'phonenumber') return 'phone';
  if (EMAIL_PROPERTIES.has(p.name)) return 'email';
  if (URL_PROPERTIES.has(p.name)) return 'url';
  if (p.fieldType === 'textarea' || p.fieldType === 'html') return 'text';
  return 'string';
}

function isWritable(p: HubspotProperty): boolean {
  return (
    !(p.modificationMetadata?.readOnlyValue ?? false) &&
    !(p.calculated ?? false) &&
    p.fieldType !== 'calculation_equation'
  );
}

/** One HubSpot property definition as the core sees it. */
export function hubspotPropertyToCrm(p: HubspotProperty): CrmProperty {
  const type = propertyType(p);
  const property: CrmProperty = {
    name: p.name,
    label: p.label,
    type,
    writable: isWritable(p),
    custom: !(p.hubspotDefined ?? false),
    crmType: `${p.type}/${p.fieldType}`,
  };
  if (type === 'enumeration') property.options = (p.options ?? []).filter((o) => !o.hidden).map((o) => o.value);
  return property;
}

/**
 * Takes the body of `GET /crm/v3/properties/{objectType}` (or its `results` array) and returns the
 * properties as the core sees them. Throws an AppError `hubspot_schema_invalid` naming the first bad path.
 */
export function hubspotPropertiesToCrm(json: unknown): CrmProperty[] {
  const parsed = Array.isArray(json)
    ? HubspotPropertySchema.array().safeParse(json)
    : HubspotPropertyListSchema.transform((v) => v.results).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue ? issue.path.join('.') : '';
    throw new AppError(
      'hubspot_schema_invalid',
      `The HubSpot properties answer is not in the expected shape (at "${path}": ${issue?.message ?? 'invalid'}); ` +
        'pass the body of GET /crm/v3/properties/{objectType}.',
      'permanent',
    );
  }
  return parsed.data.filter((p) => !p.archived).map(hubspotPropertyToCrm);
}
