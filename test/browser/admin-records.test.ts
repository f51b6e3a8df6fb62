/**
 * The admin page's Records, Dead letters and Discovery views in a real Chromium against the whole
 * stack: a record found by e-mail or name, with its CRM link, company link and history grouped by run;
 * the jobs still being retried with their error; and discovery from persona to preview to run.
 */
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DiscoveryPreview } from '../../src/discovery/discovery.js';
import { settled, stateReaches } from '../e2e/probes.js';
import { ADMIN_TOKEN, eventually, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { browserSkipReason, launchChromium, cellTexts, definitionTexts, signIn } from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin records browser tests: ${skip}`);

describe.skipIf(skip)('admin page: records, retries and discovery', () => {
  // Three attempts a minute apart: a failed job stays in "retry" long enough to be seen there.
  const stack = useStack({ service: { queue: { maxAttempts: 3, retryDelaySeconds: 120, retryDelayMaxSeconds: 120 } } });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let offset = 1200;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    problems = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  // The contact's history is grouped by run.
  it('finds a contact by e-mail and by name, links to it and its company in HubSpot', async () => {
    const [p] = partnerPeople(stack.sandboxes, 1, offset++);
    const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
    const key = { connection: 'hubspot', objectType: 'contact', recordId: id };
    await stateReaches(stack.running, key, 'enriched');
    await settled(stack);
    const contact = stack.sandboxes.hubspot.getContact(id)!;
    expect(contact.firstname).toBeTruthy();

    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Records' }).click();
    await page.getByLabel('Id, e-mail or name').fill(p!.workEmail!.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    // One match opens straight away.
    await expect.poll(async () => (await definitionTexts(page, '#record-result')).Status).toBe('Enriched');
    const shown = await definitionTexts(page, '#record-result');
    expect(shown['Record id']).toBe(id);
    expect(shown['Matched by']).toBeTruthy();
    const { body: view } = await stack.running.admin<{ state: { companyId: string | null } }>(
      'GET',
      `/records/hubspot/contact/${id}`,
    );
    const portal = stack.sandboxes.hubspot.portalId;
    // The sandbox's own record page at the app's path: nothing the page links to is the real app or a 404.
    const link = page.getByRole('link', { name: 'Open in HubSpot' });
    expect(await link.getAttribute('href')).toBe(`${stack.sandboxes.hubspot.url}/contacts/${portal}/record/0-1/${id}`);
    const [opened] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    expect(await opened.locator('h1').textContent()).toBe(`Contact ${id}: ${contact.firstname} ${contact.lastname}`);
    await opened.close();
    if (view.state.companyId) {
      expect(shown.Company).toContain(view.state.companyId);
      const companyUrl = `${stack.sandboxes.hubspot.url}/contacts/${portal}/record/0-2/${view.state.companyId}`;
      expect(await page.locator('#record-result dd a').first().getAttribute('href')).toBe(companyUrl);
      expect((await fetch(companyUrl)).status).toBe(200);
    }
    await expect.poll(() => page.locator('#record-result h4').textContent()).toBe('History: 1 run, newest first');
    const firstRun = await cellTexts(page, '#record-result details.run');
    expect(firstRun.find((r) => r[0] === 'firstname')).toEqual([
      'firstname',
      '(empty)',
      contact.firstname,
      'fill_empty',
      'Written',
      expect.any(String),
    ]);

    // A second run of the same data writes nothing, and shows as a run of its own.
    await page.getByRole('button', { name: 'Enrich now' }).click();
    await expect.poll(() => page.locator('#records-message').textContent()).toContain('Queued ahead of bulk work');
    await settled(stack);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('#record-result h4').textContent()).toBe('History: 2 runs, newest first');
    // Runs are numbered from the oldest: the newest, shown first, has the highest number.
    const summaries = await page.locator('#record-result details.run summary').allTextContents();
    expect(summaries[0]).toMatch(/^Run 2 \(newest\): .* — 0 properties written; \S/);
    expect(summaries[1]).toMatch(/^Run 1: .* — \d+ properties written/);
    // Each run says what started it: this one the page's button, the first the contact's creation.
    expect(summaries[0]).toContain('started by "Enrich now" on this page');
    expect(summaries[1]).toContain('started by a new record (webhook)');

    // By name: every contact whose name holds the text, this one among them.
    await page.getByLabel('Id, e-mail or name').fill(String(contact.lastname));
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(async () => (await cellTexts(page, '#record-results')).some((r) => r[2] === id)).toBe(true);
    const row = (await cellTexts(page, '#record-results')).find((r) => r[2] === id)!;
    expect(row.slice(0, 4)).toEqual([`${contact.firstname} ${contact.lastname}`, p!.workEmail!, id, 'Enriched']);

    // By full name, as a person types it: first and last name together.
    await page.getByLabel('Id, e-mail or name').fill(`${contact.firstname} ${contact.lastname}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(async () => (await definitionTexts(page, '#record-result'))['Record id']).toBe(id);

    // Nothing found says so.
    await page.getByLabel('Id, e-mail or name').fill('nobody-by-this-name-xyz');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => page.locator('#record-results').textContent())
      .toContain('No contact in HubSpot matches “nobody-by-this-name-xyz”.');
  });

  it('saves a persona from the catalogue, previews the people it finds at a company, and adds them', async () => {
    const { sandboxes, running } = stack;
    // The partner company with the most people, its HubSpot record enriched so its partner id is known.
    const byCompany = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const person of sandboxes.partner.dataset.personRecords) {
      const partnerId = person.employer.company.id as string;
      byCompany.set(partnerId, [...(byCompany.get(partnerId) ?? []), person]);
    }
    const [, people] = [...byCompany].sort((a, b) => b[1].length - a[1].length)[0]!;
    const company = sandboxes.hubspot.createCompany({ domain: people[0]!.employer.domain });
    await eventually(
      () => sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id || undefined,
      15_000,
      'the company to be enriched',
    );
    await settled(stack);
    const department = String(people.find((person) => person.workEmail)!.departmentId);
    const { body: catalogue } = await running.admin<{
      filters: { identifier: string; values: { code: string; label: string }[] }[];
    }>('GET', '/filter-options?identifiers=department');
    const label = catalogue.filters[0]!.values.find((v) => v.code === department)!.label;

    await signIn(page, running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Discovery' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser persona');
    await page.getByLabel('Description').fill('people in one department');
    await page.locator('#persona-department').getByLabel(label, { exact: true }).check();
    await page.getByRole('button', { name: 'Save persona' }).click();
    await expect
      .poll(() => page.locator('#persona-result').textContent())
      .toContain('Saved persona “Browser persona”.');
    const { body: saved } = await running.admin<{ filters: { department: string[] } }>(
      'GET',
      `/personas/${encodeURIComponent('Browser persona')}`,
    );
    expect(saved.filters).toEqual({ department: [department] });
    expect((await cellTexts(page, '#persona-list')).find((r) => r[0] === 'Browser persona')?.[1]).toBe(
      `Department: ${label}`,
    );

    await page.getByLabel('Company record id').fill(company.id);
    await page.getByLabel('Persona', { exact: true }).selectOption('Browser persona');
    await page.getByLabel('At most').fill('3');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#discovery-preview table').waitFor();
    const { body: preview } = await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: company.id,
      persona: 'Browser persona',
      limit: 3,
    });
    const rows = await cellTexts(page, '#discovery-preview');
    expect(rows.map((r) => r[5])).toEqual(
      preview.candidates.map((c) => ({ create: 'Create', link: 'Link', skip: 'Skip' })[c.action]),
    );
    // Who each is (the search gives a profile handle, no name) and the department the persona searched.
    expect(rows.map((r) => r[0])).toEqual(preview.candidates.map((c) => c.profile ?? '(empty)'));
    expect(rows.map((r) => r[3])).toEqual(preview.candidates.map(() => label));
    expect(rows.map((r) => r[2])).toEqual(preview.candidates.map(() => 'Any (not in the persona)'));
    expect(preview.counts.create).toBeGreaterThan(0);

    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page
      .getByRole('button', {
        name: new RegExp(`^Add ${preview.counts.create + preview.counts.link} (person|people) to HubSpot$`),
      })
      .click();
    await expect
      .poll(() => page.locator('#discovery-run-result').textContent(), { timeout: 30_000 })
      .toMatch(/^Done: \d+ created/);
    const done = (await page.locator('#discovery-run-result .ok').textContent())!;
    const created = Number(/^Done: (\d+) created/.exec(done)![1]);
    expect(created).toBe(preview.counts.create);
    expect(asked).toEqual([
      expect.stringMatching(new RegExp(`^Create ${preview.counts.create} and link ${preview.counts.link} `)),
    ]);
    const outcomes = await cellTexts(page, '#discovery-run-result');
    const made = outcomes.filter((r) => r[1] === 'created');
    expect(made).toHaveLength(created);
    // The people created by name, as the CRM now has them, not the partner's ids.
    for (const r of made) {
      const created = sandboxes.hubspot.getContact(r[3]!);
      expect(created).toBeTruthy();
      expect(r[0]).toBe(`${created!.firstname} ${created!.lastname}`);
      expect(r[0]).not.toMatch(/^pe_/);
    }
    await settled(stack);
  });
  it('shows the jobs still being retried, with their attempts and error', async () => {
    stack.sandboxes.partner.setFailRate(1);
    try {
      const [p] = partnerPeople(stack.sandboxes, 1, offset++);
      const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
      await eventually(
        async () => {
          const { body } = await stack.running.admin<{ retrying: { data: { recordId: string } }[] }>(
            'GET',
            '/jobs/retrying',
          );
          return body.retrying.some((j) => j.data.recordId === id) ? true : undefined;
        },
        30_000,
        'the contact to wait for its second attempt',
      );

      await signIn(page, stack.running.url, ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Dead letters' }).click();
      await expect
        .poll(async () => (await cellTexts(page, '#retrying')).find((r) => r[0] === `HubSpot contact ${id}`))
        .toEqual([
          `HubSpot contact ${id}`,
          'HubSpot contacts',
          '1',
          '2',
          expect.any(String),
          expect.stringMatching(/partner API failed/),
        ]);
      expect(await page.getByRole('button', { name: 'Replay all' }).isDisabled()).toBe(true);
    } finally {
      stack.sandboxes.partner.setFailRate(0);
    }
  });
});
