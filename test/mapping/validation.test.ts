import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMappingDir, loadMappings, validateMappings } from '../../src/mapping/loader.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';
import { formatProblem, MappingError, type MappingProblem } from '../../src/mapping/problems.js';

const HEAD = `crm: hubspot
object: contact
source: person
match: [{ property: email, by: work_email }]
market: { property: country, default: AU }
`;

function problems(text: string, file = 'm.yaml'): MappingProblem[] {
  return parseMappingDocument(text, file).problems;
}
function lines(text: string): string[] {
  return problems(text).map(formatProblem);
}

describe('parseMappingDocument', () => {
  it('accepts a minimal valid mapping', () => {
    const parsed = parseMappingDocument(`${HEAD}fields:\n  - { target: jobtitle, from: position }\n`, 'ok.yaml');
    expect(parsed.problems).toEqual([]);
    expect(parsed.document?.fields[0]).toEqual({ target: 'jobtitle', from: 'position' });
  });

  it('reports YAML syntax errors with their line', () => {
    const found = problems('crm: hubspot\nfields: [\n');
    expect(found[0]?.code).toBe('yaml_syntax');
    expect(found[0]?.message).toMatch(/line/);
  });

  it('prints a problem of the whole file as file: message, without an empty path or a dangling colon', () => {
    const printed = lines('crm: hubspot\nobject: company\nfields: [ {\n');
    expect(printed.length).toBeGreaterThan(0);
    for (const line of printed) {
      expect(line).toMatch(/^m\.yaml: Flow (map|sequence) .* at line \d+, column \d+$/);
      expect(line).not.toContain('::');
    }
    expect(formatProblem({ file: 'm.yaml', path: [], code: 'invalid_value', message: 'no fields' })).toBe(
      'm.yaml: no fields',
    );
  });

  it('suggests the rule a misspelt one most likely meant, and lists the rules when none is near', () => {
    expect(lines(`${HEAD}fields:\n  - { target: firstname, from: first_name, rule: fill_emtpy }\n`)).toEqual([
      'm.yaml: fields > firstname > rule: rule must be one of overwrite, fill_empty, never, protect_edits; ' +
        'did you mean "fill_empty"?',
    ]);
    expect(lines(`${HEAD}fields:\n  - { target: firstname, from: first_name, rule: sometimes }\n`)).toEqual([
      'm.yaml: fields > firstname > rule: rule must be one of overwrite, fill_empty, never, protect_edits',
    ]);
  });

  it('reports every problem in one file at once, each as file: path > to > key: message', () => {
    const text = `${HEAD}fields:
  - { target: jobtitle, from: postion }
  - { target: phone, from: phones }
  - { target: city, from: location, transform: frist }
  - { target: jobtitle, from: headline }
  - { target: hs_seniority, from: seniority, values: { Manger: manager } }
  - { target: company, from: current_company.name, transform: { name: join, args: { separator: 5 } } }
  - { target: state, from: headline, transform: pick_email }
`;
    expect(lines(text)).toEqual([
      'm.yaml: fields > jobtitle > from: ' +
        '"postion" is not a field of the partner person record; did you mean "position"?',
      'm.yaml: fields > phone > from: "phones" gives a list of phone entry values; ' +
        'add a transform that makes one value (first, join, pick_email, pick_phone) or name a key inside it',
      expect.stringMatching(/^m\.yaml: fields > city > transform: unknown transform "frist"; did you mean "first"\?/),
      'm.yaml: fields > 3: "jobtitle" is already filled by fields > jobtitle; each property may be filled once',
      expect.stringMatching(
        /^m\.yaml: fields > hs_seniority > values > Manger: "Manger" can never match: the source only produces .*did you mean "Manager"\?$/,
      ),
      expect.stringMatching(/^m\.yaml: fields > company > transform > args: bad arguments for join: separator: /),
      'm.yaml: fields > state > transform: ' +
        'pick_email takes a list of e-mail entries (such as emails.work), but gets a string value',
    ]);
  });

  it('reports a bad rule, unknown keys with a suggestion, and wrong types', () => {
    const found = problems(
      `${HEAD}fields:\n  - { target: jobtitle, from: position, rule: sometimes, trasform: first }\nextra: 1\n`,
    );
    expect(found.map((p) => [p.code, p.path.join(' > ')])).toEqual(
      expect.arrayContaining([
        ['bad_rule', 'fields > jobtitle > rule'],
        ['unknown_key', 'fields > jobtitle > trasform'],
        ['unknown_key', 'extra'],
      ]),
    );
    expect(found.find((p) => p.path.includes('trasform'))?.message).toMatch(/did you mean "transform"/);
    expect(problems(`${HEAD}fields: 3\n`)[0]).toMatchObject({ code: 'invalid_value', path: ['fields'] });
    expect(lines('crm: hubspot\nobject: contact\nsource: person\nfields: []\n')).toEqual([
      'm.yaml: match: missing; expected array',
      'm.yaml: market: missing; expected object',
    ]);
  });

  it('reports a broken field and the problems of the other fields together', () => {
    const text =
      `${HEAD}fields:\n` +
      '  - { target: firstname, from: first_name, rule: fill_empyt }\n' +
      '  - { target: jobtitle, from: positon }\n';
    expect(lines(text)).toEqual([
      'm.yaml: fields > firstname > rule: rule must be one of overwrite, fill_empty, never, protect_edits; ' +
        'did you mean "fill_empty"?',
      'm.yaml: fields > jobtitle > from: ' +
        '"positon" is not a field of the partner person record; did you mean "position"?',
    ]);
  });

  it('guards against __proto__, constructor and prototype as keys and path segments', () => {
    const keyed = problems(
      `${HEAD}fields:\n  - { target: jobtitle, from: position, values: { __proto__: x } }\nconstructor: 1\n`,
    );
    expect(keyed.map((p) => p.code)).toEqual(['forbidden_key', 'forbidden_key']);
    expect(keyed.map((p) => p.path.join(' > '))).toEqual(['fields > jobtitle > values > __proto__', 'constructor']);
    const path = problems(`${HEAD}fields:\n  - { target: jobtitle, from: current_company.constructor.prototype }\n`);
    expect(path).toMatchObject([{ code: 'forbidden_key', path: ['fields', 'jobtitle', 'from'] }]);
  });

  it('rejects value-map keys a number or true/false source can never produce', () => {
    const found = problems(
      `${HEAD}fields:\n` +
        "  - { target: a, from: year_joined, values: { soon: x, '2020': y } }\n" +
        '  - { target: b, from: phones.is_dnd, transform: first, values: { yes: x } }\n',
    );
    expect(found.map((p) => [p.code, p.path.join(' > ')])).toEqual([
      ['impossible_value_key', 'fields > a > values > soon'],
      ['impossible_value_key', 'fields > b > values > yes'],
    ]);
  });

  it('checks match kinds against the source, and the object against the CRM', () => {
    const found = problems(
      'crm: salesforce\nobject: Opportunity\nsource: person\n' +
        'match: [{ property: Website, by: website }]\nmarket: { default: AU }\nfields: []\n',
    );
    expect(found.map((p) => p.code)).toEqual(['invalid_value', 'bad_match']);
    expect(found[1]?.message).toMatch(/a person cannot be looked up by website/);
  });

  it('requires custom properties to be declared and named with our prefix', () => {
    const found = problems(`${HEAD}fields:
  - { target: crm_enrich_x, from: headline }
  - { target: headline_text, from: headline, custom: { label: H, type: string } }
  - { target: crm_enrich_dept, from: department, custom: { label: D, type: enumeration } }
`);
    expect(found.map((p) => p.code)).toEqual(['custom_property', 'custom_property', 'custom_property']);
    expect(found[0]?.message).toMatch(/declare it under custom/);
    expect(found[1]?.message).toMatch(/must start with crm_enrich_/);
    expect(found[2]?.message).toMatch(/needs its options/);
  });
});

describe('loading a directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mappings-'));
    await mkdir(join(dir, 'hubspot'));
    await writeFile(join(dir, 'hubspot', 'a.yaml'), `${HEAD}fields:\n  - { target: jobtitle, from: postion }\n`);
    await writeFile(
      join(dir, 'hubspot', 'b.yaml'),
      `${HEAD}fields:\n  - { target: jobtitle, from: position, rule: always }\n`,
    );
    await writeFile(join(dir, 'hubspot', 'c.yml'), `${HEAD}fields: []\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports every problem in every file, and two files for one object', async () => {
    const { mappings, problems: found } = await loadMappingDir(dir);
    const all = [...found, ...validateMappings(mappings)];
    // Each file as a path from the current directory, however the directory was given.
    expect(found[0]?.file).toBe(relative(process.cwd(), join(dir, 'hubspot', 'a.yaml')));
    expect(all.map((p) => [p.file.split('/').pop(), p.code])).toEqual([
      ['a.yaml', 'unknown_source_path'],
      ['b.yaml', 'bad_rule'],
      ['c.yml', 'duplicate_mapping'],
    ]);
  });

  it('start-up refuses the directory with the same report', async () => {
    const error = await loadMappings(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MappingError);
    expect((error as MappingError).code).toBe('invalid_mappings');
    expect((error as MappingError).message).toMatch(/a\.yaml: fields > jobtitle > from: "postion"/);
    expect((error as MappingError).problems).toHaveLength(3);
  });
});
