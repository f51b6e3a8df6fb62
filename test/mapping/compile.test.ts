import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CrmProperty } from '../../src/core/connector.js';
import { compileMapping, type CompiledMapping } from '../../src/mapping/compile.js';
import { customPropertiesOf } from '../../src/mapping/custom-properties.js';
import type { MappingDocument } from '../../src/mapping/format.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';
import { MappingError } from '../../src/mapping/problems.js';

async function load(file: string): Promise<MappingDocument> {
  const parsed = parseMappingDocument(await readFile(file, 'utf8'), file);
  expect(parsed.problems).toEqual([]);
  return parsed.document!;
}
function doc(fields: string): MappingDocument {
  const parsed = parseMappingDocument(
    'crm: hubspot\nobject: contact\nsource: person\nmatch: [{ property: email, by: work_email }]\n' +
      `market: { property: country, default: NZ }\nfields:\n${fields}`,
    'inline.yaml',
  );
  expect(parsed.problems).toEqual([]);
  return parsed.document!;
}

let person: Record<string, unknown>;
let contact: CompiledMapping;
let schema: CrmProperty[];
beforeAll(async () => {
  person = JSON.parse(await readFile('test/fixtures/mapping/person.json', 'utf8')) as Record<string, unknown>;
  schema = JSON.parse(await readFile('test/fixtures/mapping/hubspot/contact.json', 'utf8')) as CrmProperty[];
  contact = compileMapping(await load('mappings/hubspot/contact.yaml'), schema);
});

describe('the compiled HubSpot contact mapping', () => {
  it('maps a partner person to CRM strings', () => {
    expect(contact.map(person)).toMatchObject({
      firstname: 'Mia',
      jobtitle: 'Head of Sales',
      hs_seniority: 'director',
      crm_enrich_department: 'Sales',
      crm_enrich_work_email: 'mia@acme.com.au',
      crm_enrich_personal_email: 'mia@mail.example',
      company: 'Acme Pty Ltd',
      industry: 'Software',
      crm_enrich_role_started: '2021-03-01',
      crm_enrich_skills: 'Negotiation; SaaS',
      crm_enrich_partner_id: 'p-100',
    });
  });

  it('never writes a do-not-disturb number into a callable phone property', () => {
    const mapped = contact.map(person);
    expect(mapped.mobilephone).toBeUndefined();
    expect(mapped.phone).toBe('+61 2 9000 0000');
    const onlyDnd = { ...person, phones: [{ value: '+61 2 9000 0000', is_dnd: true }] };
    expect(contact.map(onlyDnd).phone).toBeUndefined();
  });

  it('lets a do-not-disturb number through only where the field says allow_dnd', () => {
    const allowing = compileMapping(
      doc(
        '  - { target: mobilephone, from: current_company.mobile_phones, transform: pick_phone, allow_dnd: true }\n' +
          '  - { target: phone, from: phones.value, transform: first }\n',
      ),
    );
    expect(allowing.map(person)).toEqual({ mobilephone: '+61 400 111 222', phone: '+61 2 9000 0000' });
  });

  it('gives ordered, normalised match keys and the market', () => {
    expect(
      contact.matchKeys({
        email: '  Mia@Acme.com.au ',
        hs_linkedin_url: 'https://www.linkedin.com/in/mia-tan',
        country: 'Australia',
      }),
    ).toEqual([
      { by: 'work_email', value: 'mia@acme.com.au', property: 'email' },
      { by: 'personal_email', value: 'mia@acme.com.au', property: 'email' },
      { by: 'ln_url', value: 'https://www.linkedin.com/in/mia-tan', property: 'hs_linkedin_url' },
    ]);
    expect(contact.matchKeys({ email: 'not an address', crm_enrich_partner_id: 'p-1' })).toEqual([
      { by: 'id', value: 'p-1', property: 'crm_enrich_partner_id' },
    ]);
    expect(contact.market({ country: 'new zealand' })).toBe('NZ');
    expect(contact.market({ country: 'France' })).toBe('AU');
    expect(contact.market({})).toBe('AU');
  });

  it("takes the market from the CRM's country, then the record's own keys, before the hint and the default", () => {
    // A New Zealander with no country in the CRM: the work address's domain says NZ, not the default AU.
    expect(contact.market({ email: 'jack.taylor@brightwater-farms.co.nz' })).toBe('NZ');
    expect(contact.market({ email: 'jack.taylor@brightwater-farms.nz.example' })).toBe('NZ');
    expect(contact.market({ email: 'jack.taylor@brightwater-farms.nz.example' }, 'SG')).toBe('NZ');
    // The CRM's own country wins over what the address says.
    expect(contact.market({ email: 'jack.taylor@brightwater-farms.co.nz', country: 'Singapore' })).toBe('SG');
    // A generic domain says nothing: the hint, then the default.
    expect(contact.market({ email: 'jack@acme.com' }, 'SG')).toBe('SG');
    expect(contact.market({ email: 'jack@acme.com' })).toBe('AU');
    expect(contact.market({ email: 'jack@mail.example' })).toBe('AU');

    const parsed = parseMappingDocument(
      'crm: hubspot\nobject: company\nsource: company\n' +
        'match: [{ property: domain, by: fqdn }, { property: crm_enrich_abn, by: abn }]\n' +
        'market: { property: country, default: SG }\nfields: []\n',
      'company.yaml',
    );
    expect(parsed.problems).toEqual([]);
    const company = compileMapping(parsed.document!);
    expect(company.market({ domain: 'horizon-software.nz.example' }, 'AU')).toBe('NZ');
    expect(company.market({ domain: 'www.horizon.co.nz' })).toBe('NZ');
    expect(company.market({ domain: 'horizon.com', crm_enrich_abn: '51 824 753 556' })).toBe('AU');
    expect(company.market({ domain: 'horizon.com' }, 'JP')).toBe('JP');
    expect(company.market({ domain: 'horizon.co.nz', country: 'New Zealand' })).toBe('NZ');
    expect(company.market({ domain: 'horizon.co.nz', country: 'Japan' })).toBe('JP');
  });

  it("says how to find the person's company", () => {
    expect(contact.companyKey(person)).toEqual({ by: 'fqdn', value: 'acme.com.au' });
    expect(contact.companyKey({})).toBeUndefined();
  });

  it('lists the properties to read and the rules', () => {
    expect(contact.propertiesToRead).toEqual(
      expect.arrayContaining(['email', 'country', 'jobtitle', 'crm_enrich_enriched_at']),
    );
    expect(contact.rules.firstname).toBe('fill_empty');
    expect(contact.rules.jobtitle).toBe('protect_edits');
    expect(contact.stampProperty).toBe('crm_enrich_enriched_at');
  });

  it('declares the custom properties to provision', () => {
    const specs = customPropertiesOf(contact.document);
    expect(specs.map((s) => s.name)).toContain('crm_enrich_enriched_at');
    expect(specs.find((s) => s.name === 'crm_enrich_department')).toMatchObject({
      type: 'enumeration',
      label: 'Department',
    });
    expect(specs.every((s) => s.name.startsWith('crm_enrich_'))).toBe(true);
  });
});

describe('formatting per property type', () => {
  const props: CrmProperty[] = [
    { name: 'email', label: 'Email', type: 'email', writable: true, custom: false },
    { name: 'country', label: 'Country', type: 'string', writable: true, custom: false },
    { name: 'd', label: 'D', type: 'date', writable: true, custom: false },
    { name: 't', label: 'T', type: 'datetime', writable: true, custom: false },
    { name: 'n', label: 'N', type: 'number', writable: true, custom: false },
    { name: 's', label: 'S', type: 'string', writable: true, custom: false, maxLength: 5 },
    { name: 'u', label: 'U', type: 'url', writable: true, custom: false, maxLength: 10 },
  ];

  it('formats dates, times and numbers and fits text to its length', () => {
    const m = compileMapping(
      doc(`  - { target: d, from: time_in_current_role, transform: date }
  - { target: t, from: time_in_current_role, transform: date }
  - { target: n, from: year_joined }
  - { target: s, from: headline }
  - { target: u, from: linkedin }
`),
      props,
    );
    expect(
      m.map({
        time_in_current_role: "Jan '20 - Present",
        year_joined: 2020,
        headline: 'Sales leader',
        linkedin: 'https://www.linkedin.com/in/mia',
      }),
    ).toEqual({
      d: '2020-01-01',
      t: '2020-01-01T00:00:00.000Z',
      n: '2020',
      s: 'Sales',
    });
    expect(m.stampValue(new Date('2024-02-03T04:05:06Z'))).toBe('2024-02-03T04:05:06.000Z');
  });

  it('applies value maps, defaults and static values', () => {
    const m = compileMapping(
      doc(`  - { target: a, from: seniority, values: { Manager: mgr }, default: other }
static:
  - { target: b, value: partner, rule: fill_empty }
`),
    );
    expect(m.map({ seniority: 'Manager' })).toEqual({ a: 'mgr', b: 'partner' });
    expect(m.map({ seniority: 'Other' })).toEqual({ a: 'other', b: 'partner' });
    expect(m.rules.b).toBe('fill_empty');
  });

  it('refuses to compile an invalid mapping', () => {
    expect(() => compileMapping(doc('  - { target: nope, from: headline }\n'), props)).toThrow(MappingError);
  });

  it('never reads inherited keys from a partner record', () => {
    const m = compileMapping(doc('  - { target: a, from: headline }\n'));
    const record = Object.create({ headline: 'inherited' }) as Record<string, unknown>;
    expect(m.map(record)).toEqual({});
  });
});
