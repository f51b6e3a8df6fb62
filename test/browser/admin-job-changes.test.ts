/**
 * The admin page's "Job changes" view in a real Chromium against the whole stack, under the page's own
 * CSP: the moves of the period in a table (record, person, from, to, title, actions), and the weekly
 * chart drawn by Chart.js with the same count as its "Show data" table; no script or request error.
 */
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { browserSkipReason, cellTexts, launchChromium, signIn, watchForProblems } from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin job changes browser tests: ${skip}`);

describe.skipIf(skip)('admin page job changes', () => {
  const stack = useStack({ sandboxes: { people: 200, companies: 40 } });
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    watchForProblems(page, problems, { warnings: false });
    const store = stack.running.service.parts.store.jobChanges;
    for (const [recordId, to] of [
      ['101', 'globex.example'],
      ['102', 'initech.example'],
    ] as const) {
      const id = await store.observe({
        key: { connection: 'hubspot', objectType: 'contact', recordId },
        role: {
          personId: `pe_${recordId}`,
          companyId: null,
          domain: to,
          companyName: null,
          title: 'VP Sales',
          started: '2025-06',
        },
        change: {
          connection: 'hubspot',
          objectType: 'contact',
          recordId,
          personId: `pe_${recordId}`,
          kind: 'employer',
          from: { companyId: 'co_1', domain: 'acme.example', name: 'Acme' },
          to: { companyId: 'co_2', domain: to, name: null },
          oldTitle: 'Sales Manager',
          newTitle: 'VP Sales',
          started: '2025-06',
          reason: 'the current employer changed',
        },
      });
      await store.recordActions(id!, { properties: 'done', task: 'done' });
    }
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists the moves and charts them by week', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Job changes' }).click();
    await page.locator('#job-changes-list tbody tr').first().waitFor();
    const rows = await cellTexts(page, '#job-changes-list');
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual([
      'HubSpot contact 101',
      'pe_101',
      'Acme',
      'globex.example',
      'Sales Manager → VP Sales',
      expect.any(String),
      'properties: done, task: done',
    ]);
    await expect
      .poll(() =>
        page.evaluate<boolean>("!!window.Chart?.getChart(document.querySelector('#job-changes-chart canvas'))"),
      )
      .toBe(true);
    const drawn = await page.evaluate<number[]>(
      "window.Chart.getChart(document.querySelector('#job-changes-chart canvas')).data.datasets[0].data",
    );
    expect(drawn.reduce((n, v) => n + v, 0)).toBe(2);
    const data = await cellTexts(page, '#job-changes-chart');
    expect(data.map((r) => Number(r[1])).reduce((n, v) => n + v, 0)).toBe(2);
    expect(problems).toEqual([]);
  });
});
