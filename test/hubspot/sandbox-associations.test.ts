/**
 * The HubSpot sandbox's v4 associations, through the official client: default and labelled types,
 * one primary company per contact (associatedcompanyid follows it), the batch endpoints' limits and
 * their 207 answers, and both sides' type ids.
 */
import { Client } from '@hubspot/api-client';
import * as associationsV4 from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/all.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

const Category = associationsV4.AssociationSpecAssociationCategoryEnum;

let sandbox: HubspotSandbox;
let client: Client;

beforeAll(async () => {
  // Search sees each change at once here; the indexing lag has tests of its own (sandbox.test.ts).
  sandbox = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
  client = new Client({ accessToken: 'sandbox-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
});
afterAll(() => sandbox.close());

const types = (...ids: number[]) =>
  ids.map((associationTypeId) => ({ associationCategory: Category.HubspotDefined, associationTypeId }));

describe('HubSpot sandbox associations (v4)', () => {
  it('a default association is unlabelled and does not make the company primary', async () => {
    const company = sandbox.createCompany({ name: 'A', domain: 'a-default.example' }).id;
    const contact = sandbox.createContact({ email: 'x@a-default.example' }).id;
    const res = await client.crm.associations.v4.batchApi.createDefault('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: company } }],
    });
    expect(res.results[0]!.associationSpec.associationTypeId).toBe(279);
    expect(sandbox.getContact(contact)?.associatedcompanyid).toBeUndefined();
    const page = await client.crm.associations.v4.basicApi.getPage('contacts', contact, 'companies');
    expect(page.results.map((r) => ({ id: String(r.toObjectId), types: r.associationTypes }))).toMatchObject([
      { id: company, types: [{ typeId: 279, label: null }] },
    ]);
  });

  it('a contact has one primary company: a new primary replaces the old, which stays linked', async () => {
    const first = sandbox.createCompany({ name: 'First', domain: 'first.example' }).id;
    const second = sandbox.createCompany({ name: 'Second', domain: 'second.example' }).id;
    const contact = sandbox.createContact({ email: 'y@first.example' }).id;
    await client.crm.associations.v4.batchApi.create('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: first }, types: types(279, 1) }],
    });
    expect(sandbox.getContact(contact)?.associatedcompanyid).toBe(first);
    const res = await client.crm.associations.v4.batchApi.create('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: second }, types: types(1) }],
    });
    expect([String(res.results[0]!.fromObjectId), String(res.results[0]!.toObjectId), res.results[0]!.labels]).toEqual([
      contact,
      second,
      ['Primary'],
    ]);
    expect(sandbox.getContact(contact)?.associatedcompanyid).toBe(second);

    const read = await client.crm.associations.v4.batchApi.getPage('contacts', 'companies', {
      inputs: [{ id: contact }],
    });
    const byCompany = new Map(
      read.results[0]!.to.map((t) => [
        String(t.toObjectId),
        t.associationTypes.map((a) => a.typeId).sort((a, b) => a - b),
      ]),
    );
    expect(byCompany.get(first)).toEqual([279]);
    expect(byCompany.get(second)).toEqual([1, 279]);
    // Seen from the company's side, the same link carries the company-to-contact ids.
    const fromCompany = await client.crm.associations.v4.basicApi.getPage('companies', second, 'contacts');
    expect(fromCompany.results[0]!.associationTypes.map((a) => a.typeId).sort((a, b) => a - b)).toEqual([2, 280]);
  });

  it('answers 207 naming the missing objects, and links the rest', async () => {
    const company = sandbox.createCompany({ name: 'B', domain: 'b-207.example' }).id;
    const contact = sandbox.createContact({ email: 'z@b-207.example' }).id;
    const res = await fetch(`${sandbox.url}/crm/v4/associations/contacts/companies/batch/create`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        inputs: [
          { from: { id: contact }, to: { id: company }, types: types(279) },
          { from: { id: '424242' }, to: { id: company }, types: types(279) },
        ],
      }),
    });
    expect(res.status).toBe(207);
    const body = (await res.json()) as {
      results: unknown[];
      numErrors: number;
      errors: Array<{ category: string; context: { ids: string[] } }>;
    };
    expect(body.results).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['424242'] } });
  });

  it('refuses batches over the limits and unknown type ids with 400', async () => {
    const post = (path: string, inputs: unknown[]) =>
      fetch(`${sandbox.url}/crm/v4/associations/contacts/companies/${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
        body: JSON.stringify({ inputs }),
      });
    expect(
      (
        await post(
          'batch/read',
          Array.from({ length: 1_001 }, (_, i) => ({ id: String(i) })),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await post(
          'batch/associate/default',
          Array.from({ length: 2_001 }, (_, i) => ({ from: { id: String(i) }, to: { id: '1' } })),
        )
      ).status,
    ).toBe(400);
    const bad = await post('batch/create', [{ from: { id: '1' }, to: { id: '2' }, types: types(3) }]);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/Unknown association type ids.*3/);
  });

  it('creates and lists user-defined labels through the labels API, and archives a label from a pair', async () => {
    const schema = client.crm.associations.v4.schema.definitionsApi;
    const before = await schema.getAll('contacts', 'companies');
    expect(before.results.map((t) => [t.category, t.typeId, t.label ?? null])).toEqual(
      expect.arrayContaining([
        ['HUBSPOT_DEFINED', 1, 'Primary'],
        ['HUBSPOT_DEFINED', 279, null],
      ]),
    );
    const created = await schema.create('contacts', 'companies', { label: 'Alumnus', name: 'alumnus' });
    expect(created.results.map((t) => [t.category, t.label])).toEqual([
      ['USER_DEFINED', 'Alumnus'],
      ['USER_DEFINED', 'Alumnus'],
    ]);
    const typeId = (await schema.getAll('contacts', 'companies')).results.find((t) => t.label === 'Alumnus')!.typeId;
    // The company's side lists the paired id.
    const inverse = (await schema.getAll('companies', 'contacts')).results.find((t) => t.label === 'Alumnus')!.typeId;
    expect(inverse).not.toBe(typeId);
    expect(created.results.map((t) => t.typeId).sort()).toEqual([typeId, inverse].sort());
    await expect(schema.create('contacts', 'companies', { label: 'Again', name: 'alumnus' })).rejects.toMatchObject({
      code: 409,
    });
    await expect(schema.create('contacts', 'companies', { label: '', name: 'x' })).rejects.toMatchObject({ code: 400 });

    const company = sandbox.createCompany({ name: 'Left', domain: 'left.example' }).id;
    const contact = sandbox.createContact({ email: 'z@left.example' }).id;
    const labelled = [{ associationCategory: Category.UserDefined, associationTypeId: typeId }];
    await client.crm.associations.v4.batchApi.create('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: company }, types: [...types(1), ...labelled] }],
    });
    const labels = async () =>
      (await client.crm.associations.v4.basicApi.getPage('contacts', contact, 'companies')).results.map((r) =>
        r.associationTypes.map((t) => t.label ?? null).sort(),
      );
    expect(await labels()).toEqual([['Alumnus', 'Primary', null].sort()]);
    await client.crm.associations.v4.batchApi.archiveLabels('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: company }, types: types(1) }],
    });
    expect(await labels()).toEqual([['Alumnus', null].sort()]);
    expect(sandbox.getContact(contact)?.associatedcompanyid ?? '').toBe('');
    // The unlabelled type stays while a label does; asked away with the last label, the pair goes.
    await client.crm.associations.v4.batchApi.archiveLabels('contacts', 'companies', {
      inputs: [{ _from: { id: contact }, to: { id: company }, types: [...types(279), ...labelled] }],
    });
    expect(await labels()).toEqual([]);
  });
});
