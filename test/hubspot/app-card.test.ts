/**
 * The record card as HubSpot runs it: the card of a rendered project, bundled from its own folder, and
 * rendered with @hubspot/ui-extensions' own testing renderer. hubspot.fetch reaches HubSpot's proxy through
 * the worker's `self.hsFetch`; the test stands in for that proxy and answers with CardData the service's
 * schema accepts.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement, type FunctionComponent } from 'react';
import { build } from 'esbuild';
import { Alert, Button, DescriptionListItem, StatusTag, Text } from '@hubspot/ui-extensions';
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderHubspotAppProject } from '../../connectors/hubspot/app-project.js';
import { CardData, CardEnrichAnswer, type CardDataInput } from '../../connectors/hubspot/entry-points/card-model.js';
import { repoRoot } from '../deploy/deploy-files.js';

const PUBLIC_URL = 'https://enrich.example.com';
let outDir: string;
let cardFile: string;
let EnrichmentCard: FunctionComponent;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'crm-enrich-card-'));
  await renderHubspotAppProject({ publicUrl: PUBLIC_URL, outDir });
  const cardsDir = join(outDir, 'src/app/cards');
  cardFile = join(cardsDir, 'EnrichmentCard.jsx');
  // HubSpot installs the card folder's package.json before building; the repository's own install of the
  // same pinned packages stands in for it, so the card and the testing renderer share one React.
  await symlink(join(repoRoot, 'node_modules'), join(cardsDir, 'node_modules'), 'dir');
  ({ EnrichmentCard } = (await import(cardFile)) as { EnrichmentCard: FunctionComponent });
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const enriched: CardDataInput = {
  objectType: 'contact',
  objectId: '123',
  state: 'enriched',
  lastRunAt: '2026-11-20T09:15:00.000Z',
  lastRunTrigger: 'workflow',
  lastRunId: 'job-42',
  fields: [
    {
      property: 'jobtitle',
      label: 'Job title',
      value: 'Head of Sales',
      reason: 'empty in the CRM; partner value written',
    },
    { property: 'phone', value: null, reason: 'cleared: the partner no longer lists it' },
  ],
  company: { id: '9001', name: 'Acme GmbH', reason: 'matched by the email domain acme.example' },
  jobChange: {
    detectedAt: '2026-11-19T00:00:00.000Z',
    previousTitle: 'Sales Lead',
    previousCompany: 'Globex',
    newTitle: 'Head of Sales',
    newCompany: 'Acme GmbH',
  },
};

interface FetchCall {
  url: string;
  method: string | undefined;
}

/** Stands in for HubSpot's fetch proxy: records each call and answers from `answer`. */
function stubProxy(answer: (call: FetchCall) => Response): FetchCall[] {
  const calls: FetchCall[] = [];
  const hsFetch = async (url: string, options?: { method?: string }) => {
    const call = { url, method: options?.method };
    calls.push(call);
    return answer(call);
  };
  vi.stubGlobal('self', { hsFetch });
  return calls;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('the crm-enrich record card', () => {
  it('bundles from its folder with the packages its package.json names', async () => {
    const result = await build({
      entryPoints: [cardFile],
      bundle: true,
      write: false,
      format: 'esm',
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    expect(result.outputFiles[0]!.text).toContain(PUBLIC_URL);
  });

  it('shows the state, the run, the fields with their reasons, the company and the job change', async () => {
    const calls = stubProxy(() => json(CardData.parse(enriched)));
    const { render, find, findAll, waitFor, mocks } = createRenderer('crm.record.sidebar');
    mocks.context.crm.objectId = 123;
    mocks.context.crm.objectTypeId = '0-1';
    render(createElement(EnrichmentCard));

    await waitFor(() => expect(find(StatusTag).text).toBe('Enriched'));
    expect(calls).toEqual([{ url: `${PUBLIC_URL}/hubspot/card/contact/123`, method: 'GET' }]);
    const texts = findAll(Text).map((t) => t.text);
    expect(texts).toContain('Last run 2026-11-20 09:15 UTC, started by a workflow (run job-42)');
    const items = findAll(DescriptionListItem);
    expect(items.map((i) => i.props.label)).toEqual(['Job title', 'phone']);
    const itemTexts = items.map((i) => i.findAll(Text).map((t) => t.text));
    expect(itemTexts).toEqual([
      ['Head of Sales', 'empty in the CRM; partner value written'],
      ['(cleared)', 'cleared: the partner no longer lists it'],
    ]);
    expect(texts).toContain('Company: Acme GmbH');
    expect(texts).toContain('matched by the email domain acme.example');
    expect(texts).toContain('From Sales Lead at Globex to Head of Sales at Acme GmbH');
    expect(find(Button).text).toBe('Enrich now');
    expect(find(Button).props.disabled).toBe(false);
  });

  it('asks for a company by its own type and says when it was never enriched', async () => {
    const never: CardDataInput = {
      objectType: 'company',
      objectId: '77',
      state: 'never',
      lastRunAt: null,
      lastRunTrigger: null,
      fields: [],
      company: null,
      jobChange: null,
    };
    const calls = stubProxy(() => json(CardData.parse(never)));
    const { render, find, findAll, waitFor, mocks } = createRenderer('crm.record.sidebar');
    mocks.context.crm.objectId = 77;
    mocks.context.crm.objectTypeId = '0-2';
    render(createElement(EnrichmentCard));

    await waitFor(() => expect(find(StatusTag).text).toBe('Not enriched yet'));
    expect(calls.map((c) => c.url)).toEqual([`${PUBLIC_URL}/hubspot/card/company/77`]);
    const texts = findAll(Text).map((t) => t.text);
    expect(texts).toContain('No run yet');
    expect(texts).toContain('No fields written by crm-enrich.');
    expect(findAll(DescriptionListItem)).toEqual([]);
  });

  it('posts to the enrich route when "Enrich now" is pressed, then shows the pending run', async () => {
    let state: CardDataInput = enriched;
    const calls = stubProxy((call) => {
      if (call.method === 'POST') {
        state = { ...enriched, state: 'pending', lastRunTrigger: 'card', lastRunId: 'job-43' };
        return json(CardEnrichAnswer.parse({ state: 'pending', runId: 'job-43' }), 202);
      }
      return json(CardData.parse(state));
    });
    const { render, find, waitFor, mocks } = createRenderer('crm.record.sidebar');
    mocks.context.crm.objectId = 123;
    mocks.context.crm.objectTypeId = '0-1';
    render(createElement(EnrichmentCard));
    await waitFor(() => expect(find(StatusTag).text).toBe('Enriched'));

    find(Button).trigger('onClick');

    await waitFor(() => expect(find(StatusTag).text).toBe('Enrichment under way'));
    expect(calls).toEqual([
      { url: `${PUBLIC_URL}/hubspot/card/contact/123`, method: 'GET' },
      { url: `${PUBLIC_URL}/hubspot/card/contact/123/enrich`, method: 'POST' },
      { url: `${PUBLIC_URL}/hubspot/card/contact/123`, method: 'GET' },
    ]);
    expect(find(Button).props.disabled).toBe(true);
  });

  it('says so when the service cannot be reached, rather than showing stale or empty data', async () => {
    stubProxy(() => json({ error: { code: 'invalid_signature', message: 'no' } }, 401));
    const { render, find, maybeFind, waitFor, mocks } = createRenderer('crm.record.sidebar');
    mocks.context.crm.objectId = 123;
    mocks.context.crm.objectTypeId = '0-1';
    render(createElement(EnrichmentCard));

    await waitFor(() => expect(find(Alert).props.title).toBe('crm-enrich could not be reached'));
    expect(find(Alert).text).toBe('crm-enrich answered 401');
    expect(maybeFind(Button)).toBeNull();
  });
});
