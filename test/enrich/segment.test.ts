/**
 * A fill's segment as an admin writes it: conditions parsed from text, refused with the field named, and
 * met by a record's own values as the listing's SOQL terms would be.
 */
import { describe, expect, it } from 'vitest';
import { checkSegment, meets, meetsAll, parseCondition, SegmentError } from '../../src/enrich/listing/segment.js';
import { soqlConditions } from '../../connectors/salesforce/list-conditions.js';
import type { CrmProperty } from '../../src/core/connector.js';

describe('segment conditions', () => {
  it('parses every operator, with or without spaces and quotes', () => {
    expect(parseCondition('numberofemployees>=50')).toEqual({ property: 'numberofemployees', op: '>=', value: '50' });
    expect(parseCondition(' industry = "Retail, Trade" ')).toEqual({
      property: 'industry',
      op: '=',
      value: 'Retail, Trade',
    });
    expect(parseCondition('phone != 1')).toMatchObject({ op: '!=' });
    expect(parseCondition('a<1').op).toBe('<');
    expect(parseCondition('a<=1').op).toBe('<=');
    expect(parseCondition('a>1').op).toBe('>');
    expect(parseCondition('jobtitle EMPTY')).toEqual({ property: 'jobtitle', op: 'empty' });
    expect(parseCondition('jobtitle present')).toEqual({ property: 'jobtitle', op: 'present' });
  });

  it('refuses text that is no condition, naming the where field', () => {
    for (const text of ['numberofemployees', 'x >=', '>= 5', 'a ~ b']) {
      const error = (() => {
        try {
          parseCondition(text);
        } catch (e) {
          return e;
        }
      })();
      expect(error, text).toBeInstanceOf(SegmentError);
      expect((error as SegmentError).field).toBe('where');
      expect((error as Error).message).toMatch(/^where: /);
    }
  });

  it('checks missing against the mapped properties and conditions against the known ones', () => {
    const known = new Set(['jobtitle', 'numemployees']);
    expect(() =>
      checkSegment({ missing: 'jobtitle', where: [parseCondition('NumEmployees>=50')] }, ['jobtitle'], known, 'c'),
    ).not.toThrow();
    expect(() => checkSegment({ missing: 'shoe', where: [] }, ['jobtitle'], known, 'hubspot contact')).toThrow(
      'missing: "shoe" is not a mapped property of hubspot contact; mapped: jobtitle',
    );
    expect(() => checkSegment({ missing: null, where: [parseCondition('size>1')] }, [], known, 'c')).toThrow(
      'where: "size" is not a property of c',
    );
  });

  it('compares numbers as numbers, ranges by their lower bound, text without case', () => {
    const at = (v: string | null, text: string) => meets({ p: v }, parseCondition(text));
    expect([at('120', 'p>=50'), at('9', 'p>=50'), at('50', 'p>=50'), at('50', 'p>50')]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect([at('50-100', 'p>=50'), at('25-50', 'p>=50'), at('1000+', 'p>=50')]).toEqual([true, false, true]);
    expect([at('Retail', 'p=retail'), at('Retail', 'p!=retail'), at(null, 'p!=retail')]).toEqual([true, false, true]);
    expect([at(null, 'p>=1'), at('', 'p empty'), at(' ', 'p present'), at('x', 'p present')]).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect(meetsAll({ NumberOfEmployees: '70', Title: null }, [parseCondition('numberofemployees>=50')])).toBe(true);
  });

  it('writes as SOQL only the terms SOQL reads as the filter does', () => {
    const field = (name: string, type: CrmProperty['type'], crmType: string): [string, CrmProperty] => [
      name.toLowerCase(),
      { name, label: name, type, crmType, writable: true, custom: false },
    ];
    const fields = new Map([
      field('NumberOfEmployees', 'number', 'int'),
      field('Industry', 'enumeration', 'picklist'),
      field('Description', 'text', 'textarea'),
      field('Name', 'string', 'string'),
    ]);
    const where = [
      'numberofemployees>=50',
      'numberofemployees>=many',
      "industry=O'Reilly",
      'name<M',
      'description empty',
      'title empty',
      'name present',
    ].map(parseCondition);
    expect(soqlConditions(where, fields)).toEqual([
      'NumberOfEmployees >= 50',
      "Industry = 'O\\'Reilly'",
      'Name != null',
    ]);
  });
});
