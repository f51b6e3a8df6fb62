import { describe, expect, it } from 'vitest';
import {
  checkCodes,
  describeFilters,
  PersonaFilters,
  searchCombinations,
} from '../../src/discovery/persona-filters.js';
import { profileHandle } from '../../src/discovery/target.js';

const catalogue = new Map([
  [
    'seniority',
    new Map([
      ['4', 'VP/Director / Head of'],
      ['5', 'Manager'],
    ]),
  ],
  [
    'department',
    new Map([
      ['2', 'Sales'],
      ['11', 'Marketing'],
    ]),
  ],
]);

describe('persona filters', () => {
  it('fan out to one search per seniority, department and position combination', () => {
    expect(searchCombinations({ seniority: ['4', '5'], department: ['2'] })).toEqual([
      { seniority: '4', department: '2' },
      { seniority: '5', department: '2' },
    ]);
    expect(searchCombinations({ position: ['sales', 'growth'], department: ['2', '2'] })).toEqual([
      { department: '2', position: 'sales' },
      { department: '2', position: 'growth' },
    ]);
  });

  it('refuse unknown filters, empty personas and codes the catalogue lacks, naming them', () => {
    expect(PersonaFilters.safeParse({ title: ['CEO'] }).success).toBe(false);
    expect(PersonaFilters.safeParse({}).success).toBe(false);
    expect(PersonaFilters.safeParse({ seniority: [] }).success).toBe(false);
    expect(() => checkCodes({ seniority: ['4'], department: ['99'] }, catalogue)).toThrow(
      /filters\.department: "99" is not a department code; use one of 2 \(Sales\), 11 \(Marketing\)/,
    );
    expect(() => checkCodes({ seniority: ['4'], department: ['11'] }, catalogue)).not.toThrow();
  });

  it('are said in words with the catalogue labels', () => {
    expect(describeFilters({ seniority: ['4', '5'], position: ['sales'] }, catalogue)).toBe(
      'seniority VP/Director / Head of or Manager, position containing "sales"',
    );
  });

  it('match a stored profile URL to a search handle, however it is spelled', () => {
    for (const url of [
      'https://www.linkedin.com/in/Jane-Doe-1/',
      'linkedin.com/in/jane-doe-1',
      'http://linkedin.com/in/jane-doe-1?trk=x',
      'jane-doe-1',
    ]) {
      expect(profileHandle(url)).toBe('jane-doe-1');
    }
    expect(profileHandle('https://example.com/jane')).toBeUndefined();
    expect(profileHandle(null)).toBeUndefined();
  });
});
