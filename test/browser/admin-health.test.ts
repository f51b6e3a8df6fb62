/**
 * The admin page's "Health" view in a real Chromium against the whole stack, under the page's own CSP:
 * no report before the first scan, the run button's scan with its date once done, the per-property table
 * with the counts the admin API reports, the trend growing by one row per scan in its table and its chart
 * (inline SVG), and a property's Fill action: its cost preview equal to the report's credits, then the
 * backfill to its end; no script or request error.
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
    // Two with a domain to look up, in the portal before the service: no webhook enriches them.
    stack.sandboxes.hubspot.setWebhookUrl(undefined);
    for (const name of ['Delta', 'Epsilon'])
      stack.sandboxes.hubspot.createCompany({ name, domain: `${name.toLowerCase()}.example` });
    stack.sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);
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
      api.body.properties.map((p) => [
        p.property,
        String(p.filled),
        String(p.fillable),
        String(p.credits),
        p.fillable ? 'Fill' : '',
      ]),
    );
    expect(rows.find((r) => r[0] === 'name')).toEqual(['name', '5', '0', '0', '']);
    expect(await cellTexts(page, '#health-result table:nth-of-type(3)')).toHaveLength(1);

    await page.getByRole('button', { name: 'Run a scan' }).click();
    await expect
      .poll(async () => (await cellTexts(page, '#health-result table:nth-of-type(3)')).length, { timeout: 20_000 })
      .toBe(2);
    // The chart: a line per property through one point per scan, at the share filled (name: all five).
    const series = page.locator('#health-result svg.trend-chart g.series');
    expect(await series.count()).toBe(api.body.properties.length);
    const name = page.locator('#health-result svg.trend-chart g.series[data-property="name"]');
    expect(await name.locator('circle').count()).toBe(2);
    expect(await name.locator('polyline').count()).toBe(1);
    expect(await name.locator('circle title').first().textContent()).toMatch(/^name: 100\.0% filled \(5 of 5\)/);
    const domainless = page.locator('#health-result svg.trend-chart g.series[data-property="domain"] circle');
    expect(await domainless.first().locator('title').textContent()).toMatch(/^domain: 40\.0% filled \(2 of 5\)/);
    // Filled share is drawn top-down: 100% higher on the chart than 40%.
    const cy = async (locator: typeof name) => Number(await locator.first().getAttribute('cy'));
    expect(await cy(name.locator('circle'))).toBeLessThan(await cy(domainless));
    expect(problems).toEqual([]);
  });

  it("fills a property's gaps from its row: the preview's credits are the report's, then it runs", async () => {
    const api = await stack.running.admin<Report>('GET', '/data-health/hubspot/company');
    const description = api.body.properties.find((p) => p.property === 'description')!;
    expect(description).toMatchObject({ fillable: 2, credits: 2 });
    await page.getByRole('button', { name: 'Fill description' }).click();
    await expect
      .poll(() => page.locator('#health-fill-status').textContent(), { timeout: 20_000 })
      .toContain(`2 records would be asked about (of 5 listed): at most ${description.credits} credits.`);
    await page.getByRole('button', { name: 'Start filling' }).click();
    await expect
      .poll(() => page.locator('#health-fill-status').textContent(), { timeout: 30_000 })
      .toContain('Done: 2 records asked about, of 5 listed.');
    const progress = await stack.running.admin<{ segment: unknown }>('GET', '/backfills/hubspot/company');
    expect(progress.body.segment).toEqual({ missing: 'description', where: [] });

    // A condition narrows the preview; a wrong one is named.
    await page.getByRole('button', { name: 'Fill description' }).click();
    await page.locator('#health-fill-where').fill('shoesize>=40');
    await page.getByRole('button', { name: 'Preview the cost' }).click();
    await expect
      .poll(() => page.locator('#health-fill-status').textContent())
      .toContain('where: "shoesize" is not a property of hubspot company');
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
  });
});
