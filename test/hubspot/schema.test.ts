import { describe, expect, it } from 'vitest';
import { hubspotPropertiesToCrm } from '../../connectors/hubspot/schema.js';
import {
  STANDARD_COMPANY_PROPERTIES,
  STANDARD_CONTACT_PROPERTIES,
} from '../../connectors/hubspot/standard-properties.js';

describe('hubspotPropertiesToCrm', () => {
  it('reads the standard contact properties with their types and writability', () => {
    const props = hubspotPropertiesToCrm({ results: STANDARD_CONTACT_PROPERTIES });
    const byName = new Map(props.map((p) => [p.name, p]));
    expect(byName.get('email')).toMatchObject({ type: 'email', writable: true, custom: false, crmType: 'string/text' });
    expect(byName.get('phone')).toMatchObject({ type: 'phone', writable: true });
    expect(byName.get('hs_linkedin_url')).toMatchObject({ type: 'url' });
    expect(byName.get('hs_object_id')).toMatchObject({ type: 'number', writable: false });
    expect(byName.get('createdate')).toMatchObject({ type: 'datetime', writable: false });
    expect(byName.get('lifecyclestage')?.options).toContain('salesqualifiedlead');
  });

  it('gives company industry the enumeration options and numbers their type', () => {
    const props = hubspotPropertiesToCrm({ results: STANDARD_COMPANY_PROPERTIES });
    const industry = props.find((p) => p.name === 'industry');
    expect(industry?.type).toBe('enumeration');
    expect(industry?.options).toContain('COMPUTER_SOFTWARE');
    expect(props.find((p) => p.name === 'numberofemployees')?.type).toBe('number');
    expect(props.find((p) => p.name === 'is_public')?.type).toBe('bool');
    expect(props.find((p) => p.name === 'description')?.type).toBe('text');
  });

  it('marks portal-defined properties custom, drops hidden options and calculated values are read-only', () => {
    const props = hubspotPropertiesToCrm([
      {
        name: 'crm_enrich_tier',
        label: 'Tier',
        type: 'enumeration',
        fieldType: 'select',
        hubspotDefined: false,
        options: [
          { label: 'A', value: 'a' },
          { label: 'B', value: 'b', hidden: true },
        ],
      },
      { name: 'score', label: 'Score', type: 'number', fieldType: 'calculation_equation', calculated: true },
    ]);
    expect(props[0]).toMatchObject({ custom: true, options: ['a'] });
    expect(props[1]).toMatchObject({ writable: false });
  });

  it('names the bad path when the answer is not a properties list', () => {
    expect(() => hubspotPropertiesToCrm({ results: [{ label: 'x' }] })).toThrow(/results\.0\.name/);
    expect(() => hubspotPropertiesToCrm('nope')).toThrow(/GET \/crm\/v3\/properties/);
  });
});
