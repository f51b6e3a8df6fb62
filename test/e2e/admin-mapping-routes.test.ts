/**
 * The admin API routes behind the mappings editor, over real HTTP against the whole stack: what the
 * pickers offer (the CRM's own properties, the partner's fields, the transform registry, the rules),
 * one version's document, and rendering edited rows into the document with its problems as data.
 */
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/mapping/format.js';
import { sourceCatalog } from '../../src/mapping/source-paths.js';
import { TRANSFORMS } from '../../src/mapping/transforms/registry.js';
import { serverUnavailable } from '../support/db.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface Fields {
  crm: string;
  object: string;
  source: string;
  targets: { name: string; label: string; type: string; readOnly: boolean; custom: boolean; options?: string[] }[];
  sources: Record<'person' | 'company', { path: string; type: string; values?: string[] }[]>;
  rules: { name: string; description: string; default: boolean }[];
  transforms: { name: string; description: string }[];
}
interface Problem {
  field: string;
  code: string;
  message: string;
}
interface Rendered {
  document: string;
  fields: Record<string, unknown>[] | null;
  valid: boolean;
  problems: Problem[];
}
interface ErrorBody {
  error: { code: string; message: string; details: { field?: string; problems?: Problem[] } };
}

const JOBTITLE = '  - { target: jobtitle, from: position }\n';

describe.skipIf(skip)('admin API: mappings editor routes', () => {
  const stack = useStack();
  const activeDocument = async () =>
    (await stack.running.admin<{ active: { version: number; document: string } }>('GET', '/mappings/hubspot/contact'))
      .body.active;

  it(
    'lists what the pickers offer from the CRM schema, the partner schemas, ' +
      'the transform registry and the rule list',
    async () => {
      const res = await stack.running.admin<Fields>('GET', '/mappings/hubspot/contact/fields');
      expect(res.status).toBe(200);
      const { body } = res;
      expect(body).toMatchObject({ crm: 'hubspot', object: 'contact', source: 'person' });
      expect(body.targets.find((t) => t.name === 'jobtitle')).toEqual({
        name: 'jobtitle',
        label: 'Job Title',
        type: 'string',
        crmType: 'string/text',
        readOnly: false,
        custom: false,
      });
      expect(body.targets.find((t) => t.name === 'hs_object_id')).toMatchObject({ readOnly: true, type: 'number' });
      expect(body.targets.find((t) => t.name === 'lifecyclestage')?.options?.length).toBeGreaterThan(0);
      const labels = body.targets.map((t) => t.label);
      expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, 'en')));
      expect(body.sources.person.map((s) => s.path)).toEqual([...sourceCatalog('person').paths.keys()]);
      expect(body.sources.company.map((s) => s.path)).toEqual([...sourceCatalog('company').paths.keys()]);
      expect(body.sources.person.find((s) => s.path === 'position')).toEqual({
        path: 'position',
        type: 'a string value',
      });
      expect(body.sources.person.find((s) => s.path === 'seniority')?.values).toContain('Manager');
      expect(body.rules.map((r) => r.name)).toEqual([...RULES]);
      expect(body.rules.find((r) => r.default)?.name).toBe('protect_edits');
      expect(body.rules.find((r) => r.name === 'fill_empty')?.description).toBe('only into an empty property');
      expect(body.transforms.map((t) => t.name)).toEqual([...TRANSFORMS.keys()]);
      expect(body.transforms.every((t) => t.description.length > 0)).toBe(true);

      const salesforce = await stack.running.admin<Fields>('GET', '/mappings/salesforce/lead/fields');
      expect(salesforce.status).toBe(200);
      expect(salesforce.body).toMatchObject({ crm: 'salesforce', object: 'Lead', source: 'person' });
      expect(salesforce.body.targets.some((t) => t.name === 'Title')).toBe(true);

      const noCrm = await stack.running.admin<ErrorBody>('GET', '/mappings/pipedrive/contact/fields');
      expect([noCrm.status, noCrm.body.error.code, noCrm.body.error.details.field]).toEqual([404, 'not_found', 'crm']);
      const noObject = await stack.running.admin<ErrorBody>('GET', '/mappings/hubspot/deal/fields');
      expect([noObject.status, noObject.body.error.code, noObject.body.error.details.field]).toEqual([
        404,
        'not_found',
        'object',
      ]);
    },
  );

  it('shows one version with its document, and says which version does not exist', async () => {
    const active = await activeDocument();
    const res = await stack.running.admin<{
      version: { version: number; document: string; author: string; active: boolean };
    }>('GET', `/mappings/hubspot/contact/versions/${active.version}`);
    expect(res.status).toBe(200);
    expect(res.body.version).toMatchObject({ version: active.version, document: active.document, active: true });
    const missing = await stack.running.admin<ErrorBody>('GET', '/mappings/hubspot/contact/versions/99');
    expect([missing.status, missing.body.error.code, missing.body.error.message]).toEqual([
      404,
      'not_found',
      'hubspot/contact has no version 99',
    ]);
    const bad = await stack.running.admin<ErrorBody>('GET', '/mappings/hubspot/contact/versions/one');
    expect([bad.status, bad.body.error.details.field]).toEqual([400, 'version']);
    const noMapping = await stack.running.admin<ErrorBody>('GET', '/mappings/hubspot/deal/versions/1');
    expect(noMapping.status).toBe(404);
  });

  it('renders edited rows into the document, changing only their lines, and reads rows back from one', async () => {
    const { document } = await activeDocument();
    const read = await stack.running.admin<Rendered>('POST', '/mappings/render', { document });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ document, valid: true, problems: [] });
    const rows = read.body.fields!;
    expect(rows.find((r) => r.target === 'jobtitle')).toEqual({ target: 'jobtitle', from: 'position' });

    const edited = rows.map((r) => (r.target === 'jobtitle' ? { ...r, rule: 'fill_empty' } : r));
    const res = await stack.running.admin<Rendered>('POST', '/mappings/render', { document, fields: edited });
    expect(res.status).toBe(200);
    expect(res.body.document).toBe(
      document.replace(JOBTITLE, '  - { target: jobtitle, from: position, rule: fill_empty }\n'),
    );
    expect(res.body).toMatchObject({ valid: true, problems: [], fields: edited });
    // Nothing was saved: rendering is a draft.
    expect((await activeDocument()).document).toBe(document);
  });

  it("reports a draft's problems as data, with the messages validate (and mappings check) give", async () => {
    const { document } = await activeDocument();
    const rows = (await stack.running.admin<Rendered>('POST', '/mappings/render', { document })).body.fields!;
    const bad = rows.map((r) => (r.target === 'jobtitle' ? { ...r, target: 'jobtitel' } : r));
    const res = await stack.running.admin<Rendered>('POST', '/mappings/render', { document, fields: bad });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    const refused = await stack.running.admin<ErrorBody>('POST', '/mappings/validate', { document: res.body.document });
    expect(refused.status).toBe(422);
    expect(res.body.problems).toEqual(refused.body.error.details.problems);
    expect(res.body.problems.map((p) => [p.field, p.code])).toEqual([
      ['fields > jobtitel > target', 'unknown_property'],
    ]);
    expect(res.body.problems[0]!.message).toBe('the CRM has no property "jobtitel"; did you mean "jobtitle"?');

    // YAML that does not parse: its rows cannot be read, and the problem says why.
    const broken = await stack.running.admin<Rendered>('POST', '/mappings/render', { document: 'crm: [hubspot\n' });
    expect(broken.status).toBe(200);
    expect(broken.body.fields).toBeNull();
    expect(broken.body.problems[0]!.code).toBe('yaml_syntax');
    // Rows cannot be written into it either: that is the caller's mistake, said so.
    const into = await stack.running.admin<ErrorBody>('POST', '/mappings/render', {
      document: 'crm: [hubspot\n',
      fields: [],
    });
    expect([into.status, into.body.error.code, into.body.error.details.field]).toEqual([
      400,
      'invalid_request',
      'document',
    ]);
    const noRows = await stack.running.admin<ErrorBody>('POST', '/mappings/render', { document, fields: 'jobtitle' });
    expect([noRows.status, noRows.body.error.details.field]).toEqual([400, 'fields']);
  });
});
