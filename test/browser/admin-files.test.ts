/**
 * The admin page's "Files" view in a real Chromium against the whole stack, under the page's own CSP:
 * a CSV file uploaded from the form shows its cost preview and invalid lines, runs to the end, and its
 * result downloads with every row and its status; no script or request error.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { browserSkipReason, launchChromium, signIn, watchForProblems } from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin files browser tests: ${skip}`);

describe.skipIf(skip)('admin page files', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'admin-files-'));
  const stack = useStack({
    sandboxes: { people: 200, companies: 40 },
    service: { env: { CRM_ENRICH_DATA_DIR: dataDir } },
  });
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    watchForProblems(page, problems, { warnings: false });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('uploads a file, shows the preview and progress, and downloads the result', async () => {
    const people = partnerPeople(stack.sandboxes, 2);
    const csv = ['Name,Email', `Ann,${people[0]!.workEmail!}`, `Bo,${people[1]!.workEmail!}`, 'Cy,', ''].join('\n');
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Files' }).click();
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'fair.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload and enrich' }).click();
    await page.locator('#files-download').waitFor({ timeout: 30_000 });
    expect(await page.locator('#files-job .preview').textContent()).toBe('Would spend at most 4 credits');
    expect(await page.locator('#files-job').textContent()).toContain('line 4: no usable match key');
    expect(await page.locator('#files-job .progress-text').textContent()).toBe(
      '3 rows written: 2 enriched, 0 no match, 0 in the CRM, 1 invalid, 0 skipped',
    );

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#files-download').click()]);
    expect(download.suggestedFilename()).toBe('fair-enriched.csv');
    const rows: string[][] = parse(readFileSync(await download.path()), { bom: true });
    const status = rows[0]!.indexOf('crm_enrich_status');
    expect(rows.slice(1).map((r) => [r[0], r[status]])).toEqual([
      ['Ann', 'enriched'],
      ['Bo', 'enriched'],
      ['Cy', 'invalid'],
    ]);
    await page.locator('#files-list tbody tr').first().waitFor();
    // A job in the list opens again by its file's name.
    await page.locator('#files-job').evaluate((node) => node.replaceChildren());
    await page.locator('#files-list').getByRole('button', { name: 'fair.csv' }).first().click();
    await page.locator('#files-download').waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
  }, 60_000);
});
