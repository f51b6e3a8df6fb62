/**
 * The CustomField and PermissionSet metadata crm-enrich writes, both as SFDX source and through the
 * Metadata API: Salesforce's type names and limits, and field-level security only where Salesforce has it.
 */
import { describe, expect, it } from 'vitest';
import { customFieldMetadata } from '../../connectors/salesforce/field-metadata.js';
import { fieldPermissionsFor, integrationPermissionSet } from '../../connectors/salesforce/permission-set.js';

describe('customFieldMetadata', () => {
  it("names the field Object.Name__c and maps each property type to Salesforce's", () => {
    expect(
      customFieldMetadata('Lead', { name: 'CE Partner Id', label: 'Partner Id', type: 'string', maxLength: 64 }),
    ).toEqual({ fullName: 'Lead.CE_Partner_Id__c', label: 'Partner Id', type: 'Text', length: 64 });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'number' })).toMatchObject({
      type: 'Number',
      precision: 18,
      scale: 0,
    });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'datetime' })).toMatchObject({
      type: 'DateTime',
    });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'url' })).toMatchObject({ type: 'Url' });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'bool' })).toMatchObject({
      type: 'Checkbox',
      defaultValue: 'false',
    });
  });

  it("keeps text within Salesforce's limits: Text up to 255, Long Text Area from 256", () => {
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'string', maxLength: 1000 })).toMatchObject({
      type: 'Text',
      length: 255,
    });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'string' })).toMatchObject({ length: 255 });
    expect(customFieldMetadata('Lead', { name: 'A__c', label: 'A', type: 'text', maxLength: 10 })).toMatchObject({
      type: 'LongTextArea',
      length: 256,
      visibleLines: 3,
    });
  });

  it('restricts a picklist to the declared options, and shows the description as help text', () => {
    const field = customFieldMetadata('Contact', {
      name: 'CE_Seniority__c',
      label: 'Seniority',
      type: 'enumeration',
      options: ['Manager', 'Other'],
      description: 'From the partner.',
    });
    expect(field.valueSet).toEqual({
      restricted: true,
      valueSetDefinition: {
        sorted: false,
        value: [
          { fullName: 'Manager', default: false, label: 'Manager' },
          { fullName: 'Other', default: false, label: 'Other' },
        ],
      },
    });
    expect(field).toMatchObject({ description: 'From the partner.', inlineHelpText: 'From the partner.' });
  });
});

describe('integration permission set', () => {
  it('grants edit on written fields, read on read-only ones, through compound fields, only where FLS applies', () => {
    const permissions = fieldPermissionsFor([
      {
        object: 'Lead',
        written: ['FirstName', 'Company', 'Title', 'CE_X__c', 'City', 'Country'],
        read: ['Email', 'CE_X__c'],
      },
      { object: 'Account', written: ['Name', 'BillingCountry', 'BillingCity'], read: ['CE_Discover__c'] },
    ]);
    expect(permissions).toEqual([
      { field: 'Account.BillingAddress', readable: true, editable: true },
      { field: 'Account.CE_Discover__c', readable: true, editable: false },
      { field: 'Lead.Address', readable: true, editable: true },
      { field: 'Lead.CE_X__c', readable: true, editable: true },
      { field: 'Lead.Email', readable: true, editable: false },
      { field: 'Lead.Title', readable: true, editable: true },
    ]);
  });

  it('reads, edits and creates every mapped object, without delete', () => {
    const set = integrationPermissionSet([
      { object: 'Lead', written: [], read: [] },
      { object: 'Contact', written: [], read: [] },
    ]);
    expect(set.fullName).toBe('Crm_Enrich_Integration');
    expect(
      set.objectPermissions?.map((p) => [
        p.object,
        p.allowRead,
        p.allowEdit,
        p.allowCreate,
        p.allowDelete,
        p.viewAllRecords,
      ]),
    ).toEqual([
      ['Contact', true, true, true, false, true],
      ['Lead', true, true, true, false, true],
    ]);
  });
});
