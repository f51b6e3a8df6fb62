/**
 * The admin page's "Health" view in a real Chromium against the whole stack, under the page's own CSP:
 * no report before the first scan, the run button's scan with its date once done, the per-property table
 * with the counts the admin API reports, and the trend growing by one row per scan; no script or request error.
 */
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { browserSkipReason, cellTexts, launchChromium, signIn, watchForProblems } from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin health browser tests: ${skip}`);

interface Report {
  properties: { property: string; filled: number; fillable: number; credits: number }[];
}

describe.skipIf(skip)('admin page health', () => {
  const stack = useStack({ sandboxes: { people: 100, companies: 20 } });
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    watchForProblems(page, problems, { warnings: false });
    for (const name of ['Alpha', 'Beta', 'Gamma']) stack.sandboxes.hubspot.createCompany({ name });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('runs a scan from the button and shows its per-property table, date and trend', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Health' }).click();
    await page.locator('#health-object').selectOption('hubspot/company');
    await expect.poll(() => page.locator('#health-last-run').textContent()).toContain('No scan has finished yet');

    await page.getByRole('button', { name: 'Run a scan' }).click();
    await expect
      .poll(() => page.locator('#health-last-run').textContent(), { timeout: 20_000 })
      .toMatch(/^Last scan: /);
    const api = await stack.running.admin<Report>('GET', '/data-health/hubspot/company');
    expect(api.status).toBe(200);
    const rows = await cellTexts(page, '#health-result table:nth-of-type(1)');
    expect(rows).toEqual(
      api.body.properties.map((p) => [p.property, String(p.filled), String(p.fillable), String(p.credits)]),
    );
    expect(rows.find((r) => r[0] === 'name')).toEqual(['name', '3', '0', '0']);
    expect(await cellTexts(page, '#health-result table:nth-of-type(3)')).toHaveLength(1);

    await page.getByRole('button', { name: 'Run a scan' }).click();
    await expect
      .poll(async () => (await cellTexts(page, '#health-result table:nth-of-type(3)')).length, { timeout: 20_000 })
      .toBe(2);
    expect(problems).toEqual([]);
  });
});
