import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { STANDARD_CONTACT_PROPERTIES } from '../../connectors/hubspot/standard-properties.js';
import { standardFields } from '../../connectors/salesforce/standard-fields.js';
import type { CrmProperty } from '../../src/core/connector.js';
import { checkAgainstCrm } from '../../src/mapping/crm-check.js';
import { crmPropertiesFrom } from '../../src/cli/crm-schema-file.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';

const schema: CrmProperty[] = [
  { name: 'email', label: 'Email', type: 'email', writable: true, custom: false },
  { name: 'country', label: 'Country', type: 'string', writable: true, custom: false },
  { name: 'jobtitle', label: 'Job Title', type: 'string', writable: true, custom: false, maxLength: 10 },
  {
    name: 'hs_seniority',
    label: 'Seniority',
    type: 'enumeration',
    writable: true,
    custom: false,
    options: ['manager', 'director'],
  },
  { name: 'numberofemployees', label: 'Employees', type: 'number', writable: true, custom: false },
  { name: 'started', label: 'Started', type: 'date', writable: true, custom: false },
  { name: 'is_public', label: 'Is public', type: 'bool', writable: true, custom: false },
  { name: 'hs_object_id', label: 'Record ID', type: 'number', writable: false, custom: false },
  { name: 'crm_enrich_web', label: 'Web', type: 'string', writable: true, custom: true },
];

function check(fields: string, extra = ''): [string, string][] {
  const text =
    'crm: hubspot\nobject: contact\nsource: person\n' +
    'match: [{ property: email, by: work_email }, { property: linkedin, by: ln_url }]\n' +
    `market: { property: country, default: AU }\nfields:\n${fields}${extra}`;
  const parsed = parseMappingDocument(text, 'm.yaml');
  expect(parsed.problems).toEqual([]);
  return checkAgainstCrm(parsed.document!, schema, 'm.yaml').map((p) => [
    p.code,
    `${p.path.join(' > ')}: ${p.message}`,
  ]);
}

describe('checkAgainstCrm', () => {
  it('reports properties the CRM does not have, with the nearest name', () => {
    expect(check('  - { target: jobtitel, from: position }\n')).toEqual([
      ['unknown_property', 'match > 1 > property: the CRM has no property "linkedin"'],
      ['unknown_property', 'fields > jobtitel > target: the CRM has no property "jobtitel"; did you mean "jobtitle"?'],
    ]);
  });

  it('refuses read-only targets', () => {
    expect(check('  - { target: hs_object_id, from: id }\n').slice(1)).toEqual([
      [
        'read_only_property',
        'fields > hs_object_id > target: hs_object_id is read-only in the CRM; choose a writable property',
      ],
    ]);
  });

  it('checks picklist options, free text into a picklist, numbers, dates, booleans and lengths', () => {
    const found = check(`  - { target: hs_seniority, from: seniority, values: { Manager: manager, Other: staff } }
  - { target: numberofemployees, from: current_company.size }
  - { target: started, from: time_in_current_role }
  - { target: is_public, from: headline }
  - { target: jobtitle, from: position, default: Unknown position }
`).slice(1);
    expect(found.map(([code]) => code)).toEqual([
      'option_not_allowed',
      'type_mismatch',
      'type_mismatch',
      'type_mismatch',
    ]);
    expect(found[0]![1]).toMatch(/"staff" is not an option of hs_seniority; options: "manager", "director"/);
    expect(found[1]![1]).toMatch(/number property .* add the number transform/);
    expect(found[2]![1]).toMatch(/date property .* add the date transform/);
    expect(check('  - { target: hs_seniority, from: position }\n').slice(1)[0]![1]).toMatch(
      /picklist .* add a value map/,
    );
    expect(
      check('  - { target: jobtitle, from: seniority, values: { Manager: A very long manager title } }\n').slice(1),
    ).toEqual([
      ['too_long', 'fields > jobtitle: "A very long manager title" is longer than the 10 characters jobtitle holds'],
    ]);
  });

  it('accepts what fits: transformed numbers and dates, mapped options, declared custom properties to create', () => {
    expect(
      check(`  - { target: hs_seniority, from: seniority, values: { Manager: manager } }
  - { target: numberofemployees, from: current_company.size, transform: number }
  - { target: started, from: time_in_current_role, transform: date }
  - { target: crm_enrich_new, from: headline, custom: { label: New, type: string } }
`).slice(1),
    ).toEqual([]);
  });

  it('reports a custom property that exists with another type', () => {
    expect(
      check('  - { target: crm_enrich_web, from: year_joined, custom: { label: Web, type: number } }\n').slice(1),
    ).toEqual([
      [
        'type_mismatch',
        'fields > crm_enrich_web > custom > type: ' +
          'crm_enrich_web exists as string but the mapping declares number; make them agree',
      ],
    ]);
  });
});

describe('CRM schema files', () => {
  it('reads the normalised list, a HubSpot properties answer and a Salesforce describe answer', async () => {
    const normalised = crmPropertiesFrom(
      JSON.parse(await readFile('test/fixtures/mapping/hubspot/contact.json', 'utf8')),
    );
    expect(normalised.find((p) => p.name === 'jobtitle')).toMatchObject({ type: 'string', writable: true });
    const hubspot = crmPropertiesFrom({ results: STANDARD_CONTACT_PROPERTIES });
    expect(hubspot.find((p) => p.name === 'hs_object_id')).toMatchObject({ writable: false });
    const salesforce = crmPropertiesFrom({ name: 'Lead', fields: standardFields('Lead') });
    expect(salesforce.find((p) => p.name === 'Title')).toMatchObject({ type: 'string', maxLength: 128 });
  });

  it('says what is wrong with a file that is none of them', () => {
    expect(() => crmPropertiesFrom([{ name: 'x', writable: 'yes' }])).toThrow(/not a property list/);
    expect(() => crmPropertiesFrom({ nothing: true })).toThrow(/HubSpot properties answer/);
  });
});
