/**
 * What the browser tests share: launching Chromium, and what the admin page tests do and read in it
 * (sign in, open a mapping, read tables and definition lists as text).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { serverUnavailable } from '../support/db.js';

/** Debian's Chromium, which `.ci/run` installs. */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run on this machine (no Postgres server, no Chromium), or undefined. */
export async function browserSkipReason(): Promise<string | undefined> {
  return (
    (await serverUnavailable()) ??
    (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`)
  );
}

/** Chromium headless, with nothing in the background that would reach out of the machine. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Collects into `problems` what means part of the page silently does not work: a script error, a
 * console error (and warning, with `warnings`), a request that failed or was answered 400 or above.
 */
export function watchForProblems(page: Page, problems: string[], options: { warnings: boolean }): void {
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || (options.warnings && message.type() === 'warning'))
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
}

/** Opens the page, enters the token and waits for the mapping list the page loads after it. */
export async function signIn(page: Page, serviceUrl: string, token: string): Promise<void> {
  await page.goto(`${serviceUrl}/admin`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#mapping-list tbody tr').first().waitFor();
}

/** Opens one mapping (`crm/object`) from the list and waits for its document. */
export async function openMapping(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: `Open ${name}`, exact: true }).click();
  await page.locator('#mapping-detail-title', { hasText: name }).waitFor();
  await page.locator('#mapping-versions tbody tr').first().waitFor();
}

/** The body rows of the tables under `selector`, each as its cells' trimmed text. */
export function cellTexts(page: Page, selector: string): Promise<string[][]> {
  return page
    .locator(`${selector} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...row.querySelectorAll(':scope > th, :scope > td')].map((cell) => (cell.textContent ?? '').trim()),
      ),
    );
}

/** The definition lists under `selector` as term to description text. */
export function definitionTexts(page: Page, selector: string): Promise<Record<string, string>> {
  return page
    .locator(`${selector} dt`)
    .evaluateAll((terms) =>
      Object.fromEntries(
        terms.map((dt) => [(dt.textContent ?? '').trim(), (dt.nextElementSibling?.textContent ?? '').trim()]),
      ),
    );
}

/** Opens the "Edit as YAML" view of the open mapping, where the document's textarea is. */
export async function showYaml(page: Page): Promise<void> {
  if (!(await page.locator('#yaml-view').evaluate((el) => (el as unknown as { open: boolean }).open)))
    await page.locator('#yaml-view > summary').click();
  await page.getByLabel('Mapping document (YAML)').waitFor();
}

/** Waits until the editor's draft was checked by the service: `valid`, or `problems` when some are expected. */
export async function draftChecked(page: Page, state: 'valid' | 'problems' = 'valid'): Promise<void> {
  await page.locator(`#mapping-editor[data-state="${state}"]`).waitFor({ state: 'attached' });
}
