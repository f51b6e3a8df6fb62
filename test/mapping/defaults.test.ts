import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  STANDARD_COMPANY_PROPERTIES,
  STANDARD_CONTACT_PROPERTIES,
} from '../../connectors/hubspot/standard-properties.js';
import { standardFields } from '../../connectors/salesforce/standard-fields.js';
import { hubspotPropertiesToCrm } from '../../connectors/hubspot/schema.js';
import { salesforceDescribeToCrm } from '../../connectors/salesforce/schema.js';
import { compileMapping } from '../../src/mapping/compile.js';
import { customPropertiesOf } from '../../src/mapping/custom-properties.js';
import { mappingJsonSchema } from '../../src/mapping/format.js';
import { readCrmSchemaDir } from '../../src/cli/crm-schema-file.js';
import { loadMappingDir, schemaKey, validateMappings, type LoadedMapping } from '../../src/mapping/loader.js';
import { formatProblems } from '../../src/mapping/problems.js';
import { sourceCatalog } from '../../src/mapping/source-paths.js';

let mappings: LoadedMapping[];
beforeAll(async () => {
  const loaded = await loadMappingDir('mappings');
  expect(formatProblems(loaded.problems)).toBe('');
  mappings = loaded.mappings;
});

describe('the default mappings', () => {
  it('cover the five CRM objects, one file each', () => {
    expect(mappings.map((m) => schemaKey(m.document.crm, m.document.object)).sort()).toEqual([
      'hubspot/company',
      'hubspot/contact',
      'salesforce/account',
      'salesforce/contact',
      'salesforce/lead',
    ]);
    expect(formatProblems(validateMappings(mappings))).toBe('');
  });

  it('pass the check against the checked-in copies of the standard properties', async () => {
    const schemas = await readCrmSchemaDir('test/fixtures/mapping');
    expect(schemas.size).toBe(5);
    expect(formatProblems(validateMappings(mappings, schemas))).toBe('');
  });

  it("pass the check against the CRM sandboxes' standard properties", () => {
    const schemas = new Map([
      [schemaKey('hubspot', 'contact'), hubspotPropertiesToCrm({ results: STANDARD_CONTACT_PROPERTIES })],
      [schemaKey('hubspot', 'company'), hubspotPropertiesToCrm({ results: STANDARD_COMPANY_PROPERTIES })],
      ...(['Lead', 'Contact', 'Account'] as const).map(
        (t) => [schemaKey('salesforce', t), salesforceDescribeToCrm({ name: t, fields: standardFields(t) })] as const,
      ),
    ]);
    expect(formatProblems(validateMappings(mappings, schemas))).toBe('');
  });

  it('compile, and name custom properties as each CRM requires', () => {
    for (const { document } of mappings) {
      expect(() => compileMapping(document)).not.toThrow();
      for (const spec of customPropertiesOf(document)) {
        expect(spec.name).toMatch(document.crm === 'hubspot' ? /^crm_enrich_[a-z0-9_]+$/ : /^CE_[A-Za-z0-9_]+__c$/);
      }
    }
  });

  it('carry the partner fields a sales team uses', () => {
    const sources = (crm: string, object: string) =>
      new Set(
        mappings
          .find((m) => m.document.crm === crm && m.document.object === object)!
          .document.fields.map((f) => f.from),
      );
    for (const [crm, object] of [
      ['hubspot', 'contact'],
      ['salesforce', 'Contact'],
      ['salesforce', 'Lead'],
    ] as const) {
      expect([...sources(crm, object)]).toEqual(
        expect.arrayContaining([
          'position',
          'seniority',
          'department',
          'phones',
          'emails.work',
          'location',
          'linkedin',
          'id',
        ]),
      );
    }
    for (const [crm, object] of [
      ['hubspot', 'company'],
      ['salesforce', 'Account'],
    ] as const) {
      expect([...sources(crm, object)]).toEqual(
        expect.arrayContaining([
          'name',
          'employee_count',
          'industries',
          'revenue',
          'year_founded',
          'hq_location',
          'industry_codes.abn',
          'industry_codes.acn',
          'industry_codes.nzbn',
          'industry_codes.uen',
          'nextGen.web_traffic.summary.total_web_visitors',
          'nextGen.reviews_rating.overall_rating',
        ]),
      );
    }
  });
});

describe('mappings/schema.json', () => {
  it('is the schema generated from the format (run `crm-enrich mappings schema` after changing it)', async () => {
    expect(await readFile('mappings/schema.json', 'utf8')).toBe(mappingJsonSchema());
  });

  it('documents every key with a description', () => {
    const missing: string[] = [];
    let seen = 0;
    const visit = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as {
        properties?: Record<string, { description?: string; anyOf?: unknown[] }>;
        items?: unknown;
        anyOf?: unknown[];
      };
      for (const [key, child] of Object.entries(n.properties ?? {})) {
        seen++;
        if (!child.description) missing.push(`${path}.${key}`);
        visit(child, `${path}.${key}`);
      }
      if (n.items) visit(n.items, `${path}[]`);
      for (const option of n.anyOf ?? []) visit(option, path);
    };
    visit(JSON.parse(mappingJsonSchema()), '');
    expect(missing).toEqual([]);
    expect(seen).toBeGreaterThan(30);
  });
});

it('the partner source catalogue knows nested and list paths', () => {
  const person = sourceCatalog('person').paths;
  expect(person.get('emails.work')).toMatchObject({ base: 'email_entry', list: true });
  expect(person.get('current_company.name')).toMatchObject({ base: 'string', list: false });
  expect(person.get('secondary_position.company_name')).toMatchObject({ base: 'string', list: true });
  expect(sourceCatalog('company').paths.get('nextGen.web_traffic.summary.total_web_visitors')).toMatchObject({
    base: 'number',
    list: false,
  });
});
