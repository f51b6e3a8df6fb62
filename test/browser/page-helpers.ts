/** What the admin page tests do and read in the browser: sign in, open a mapping, read tables and definition lists as text. */
import type { Page } from 'playwright-core';

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
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll(':scope > th, :scope > td')].map((cell) => (cell.textContent ?? '').trim())));
}

/** The definition lists under `selector` as term to description text. */
export function definitionTexts(page: Page, selector: string): Promise<Record<string, string>> {
  return page.locator(`${selector} dt`).evaluateAll((terms) =>
    Object.fromEntries(terms.map((dt) => [(dt.textContent ?? '').trim(), (dt.nextElementSibling?.textContent ?? '').trim()])),
  );
}

/** Opens the "Edit as YAML" view of the open mapping, where the document's textarea is. */
export async function showYaml(page: Page): Promise<void> {
  if (!(await page.locator('#yaml-view').evaluate((el) => (el as unknown as { open: boolean }).open))) await page.locator('#yaml-view > summary').click();
  await page.getByLabel('Mapping document (YAML)').waitFor();
}

/** Waits until the editor's draft was checked by the service: `valid`, or `problems` when some are expected. */
export async function draftChecked(page: Page, state: 'valid' | 'problems' = 'valid'): Promise<void> {
  await page.locator(`#mapping-editor[data-state="${state}"]`).waitFor({ state: 'attached' });
}
