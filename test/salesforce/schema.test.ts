import { describe, expect, it } from 'vitest';
import { salesforceDescribeToCrm, SalesforceDescribeError } from '../../connectors/salesforce/schema.js';
import { describeField, INDUSTRY_VALUES, standardFields } from '../../connectors/salesforce/standard-fields.js';

describe('salesforceDescribeToCrm', () => {
  const lead = salesforceDescribeToCrm({ name: 'Lead', fields: standardFields('Lead') });
  const byName = new Map(lead.map((p) => [p.name, p]));

  it('keeps the real API names and normalises their types', () => {
    expect(byName.get('Email')).toMatchObject({
      type: 'email',
      writable: true,
      maxLength: 80,
      custom: false,
      crmType: 'email',
    });
    expect(byName.get('NumberOfEmployees')).toMatchObject({ type: 'number', writable: true });
    expect(byName.get('AnnualRevenue')).toMatchObject({ type: 'number', crmType: 'currency' });
    expect(byName.get('Website')).toMatchObject({ type: 'url', maxLength: 255 });
    expect(byName.get('Description')).toMatchObject({ type: 'text', maxLength: 32000 });
    expect(byName.get('MobilePhone')).toMatchObject({ type: 'phone' });
  });

  it('marks system fields read-only', () => {
    expect(byName.get('Id')?.writable).toBe(false);
    expect(byName.get('CreatedDate')).toMatchObject({ type: 'datetime', writable: false });
    expect(byName.get('LastModifiedDate')?.writable).toBe(false);
  });

  it('lists active picklist values only', () => {
    expect(byName.get('Industry')?.options).toEqual(INDUSTRY_VALUES);
    const fields = [
      describeField({
        name: 'Tier__c',
        type: 'picklist',
        label: 'Tier',
        picklistValues: [
          { active: true, label: 'A', value: 'A', defaultValue: false },
          { active: false, label: 'Old', value: 'Old', defaultValue: false },
        ],
      }),
    ];
    expect(salesforceDescribeToCrm({ name: 'Lead', fields })).toEqual([
      {
        name: 'Tier__c',
        label: 'Tier',
        type: 'enumeration',
        writable: true,
        custom: true,
        crmType: 'picklist',
        maxLength: 255,
        options: ['A'],
      },
    ]);
  });

  it('leaves out compound fields that cannot be written as a whole', () => {
    const props = salesforceDescribeToCrm({
      name: 'Account',
      fields: [
        { name: 'BillingAddress', type: 'address', label: 'Billing Address', updateable: false },
        { name: 'BillingCity', type: 'string', label: 'Billing City', length: 40, updateable: true },
      ],
    });
    expect(props.map((p) => p.name)).toEqual(['BillingCity']);
  });

  it('refuses input that is not a describe answer, naming the bad path', () => {
    expect(() => salesforceDescribeToCrm({ name: 'Lead', fields: [{ name: 'X' }] })).toThrow(SalesforceDescribeError);
    expect(() => salesforceDescribeToCrm([])).toThrow(/describe answer: \(root\)/);
    expect(() =>
      salesforceDescribeToCrm({ name: 'Lead', fields: [{ name: 'X', type: 'string', label: 'X' }] }),
    ).toThrow(/fields\.0\.updateable/);
  });

  it('gives every object the standard fields an enrichment maps to', () => {
    const contact = salesforceDescribeToCrm({ name: 'Contact', fields: standardFields('Contact') }).map((p) => p.name);
    expect(contact).toEqual(
      expect.arrayContaining(['Email', 'Title', 'Department', 'Phone', 'MobilePhone', 'MailingCountry', 'AccountId']),
    );
    const account = salesforceDescribeToCrm({ name: 'Account', fields: standardFields('Account') }).map((p) => p.name);
    expect(account).toEqual(
      expect.arrayContaining([
        'Name',
        'Website',
        'Industry',
        'NumberOfEmployees',
        'AnnualRevenue',
        'BillingCountry',
        'Sic',
      ]),
    );
  });
});
