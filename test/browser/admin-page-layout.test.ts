/**
 * The admin page as a phone and a desktop see it, in a real Chromium against the whole stack: every
 * view fits 390 px without sideways scrolling and uses the width at 1280 px, axe-core finds no serious
 * or critical violation on any view, no request fails and nothing is logged as an error (the favicon
 * included). Screenshots of each view at both widths go to test-artifacts/ for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settled, stateReaches } from '../e2e/probes.js';
import { ADMIN_TOKEN, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import {
  browserSkipReason,
  launchChromium,
  draftChecked,
  openMapping,
  showYaml,
  signIn,
  watchForProblems,
} from './page-helpers.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const AXE_SOURCE: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin page layout tests: ${skip}`);

const VIEWS = ['Mappings', 'Records', 'Dead letters', 'Discovery', 'Job changes', 'Health', 'Stats'] as const;
const PANEL: Record<(typeof VIEWS)[number], string> = {
  Mappings: '#mappings',
  Records: '#records',
  'Dead letters': '#dead-letters',
  Discovery: '#discovery',
  'Job changes': '#job-changes',
  Health: '#health',
  Stats: '#stats',
};

describe.skipIf(skip)('admin page layout and accessibility', () => {
  const stack = useStack();
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let contactId: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    const [p] = partnerPeople(stack.sandboxes, 1, 900);
    const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
    contactId = id;
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
    await settled(stack);
  });
  afterAll(async () => {
    await browser?.close();
  });
  async function open(width: number): Promise<void> {
    // axe-core is injected as a script tag, which the page's own policy (rightly) refuses; the policy
    // itself is checked in admin-page.test.ts.
    context = await browser.newContext({ viewport: { width, height: 800 }, bypassCSP: true });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    watchForProblems(page, problems, { warnings: true });
    await signIn(page, stack.running.url, ADMIN_TOKEN);
  }
  beforeEach(() => {
    problems = [];
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  async function show(view: (typeof VIEWS)[number]): Promise<void> {
    await page.getByRole('button', { name: view, exact: true }).click();
    await page.locator(PANEL[view]).waitFor({ state: 'visible' });
    if (view === 'Records') {
      // A record open, history and all: its tables are the widest thing the view shows.
      await page.getByLabel('Id, e-mail or name').fill(contactId);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.locator('#record-result details.run').first().waitFor();
    }
    await page.waitForLoadState('networkidle');
  }

  async function seriousViolations(): Promise<string[]> {
    if (!(await page.evaluate<boolean>("'axe' in window"))) await page.addScriptTag({ content: AXE_SOURCE });
    // A string, evaluated in the page: the test's own types know no DOM.
    return page.evaluate<string[]>(`axe.run(document).then(({ violations }) => violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  }

  it('serves a favicon, so a page load makes no failed request', async () => {
    await open(1280);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toBeTruthy();
    const res = await fetch(new URL(icon!, `${stack.running.url}/admin`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  });

  it('fits every view into 390 px with no sideways scrolling, and has no serious accessibility violation', async () => {
    await open(390);
    for (const view of VIEWS) {
      await show(view);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, `${view} is ${width} px wide`).toBeLessThanOrEqual(390);
      expect({ view, violations: await seriousViolations() }).toEqual({ view, violations: [] });
      await page.screenshot({
        path: new URL(`admin-${view.toLowerCase().replace(' ', '-')}-390.png`, ARTIFACTS).pathname,
        fullPage: true,
      });
    }
  });

  it('uses the width at 1280 px on every view, with no serious accessibility violation', async () => {
    await open(1280);
    for (const view of VIEWS) {
      await show(view);
      const { panel, page: pageWidth } = await page.evaluate<{ panel: number; page: number }>(
        `({ panel: document.querySelector('${PANEL[view]}').getBoundingClientRect().width, ` +
          'page: document.documentElement.clientWidth })',
      );
      expect(panel, `${view} panel is ${panel} px of ${pageWidth}`).toBeGreaterThan(pageWidth * 0.9);
      expect({ view, violations: await seriousViolations() }).toEqual({ view, violations: [] });
      await page.screenshot({
        path: new URL(`admin-${view.toLowerCase().replace(' ', '-')}-1280.png`, ARTIFACTS).pathname,
        fullPage: true,
      });
    }
  });

  // The editor itself, not only the list: its rows of pickers, a row with a problem, the YAML view and
  // the save confirmation with its diff, at both widths.
  it.each([390, 1280])(
    'lays out the mappings editor at %i px with no sideways scrolling and no serious accessibility violation',
    async (width) => {
      await open(width);
      await openMapping(page, 'hubspot/contact');
      await draftChecked(page);
      await page.getByRole('button', { name: 'Add field' }).click();
      await draftChecked(page, 'problems');
      await page.getByRole('combobox', { name: 'Rule for jobtitle' }).selectOption('fill_empty');
      await showYaml(page);
      await page.waitForLoadState('networkidle');
      const fits = async (what: string) => {
        const scroll = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(scroll, `${what} is ${scroll} px wide at ${width} px`).toBeLessThanOrEqual(width);
        expect({ what, violations: await seriousViolations() }).toEqual({ what, violations: [] });
      };
      await fits('the editor');
      if (width === 1280) {
        const { table, panel } = await page.evaluate<{ table: number; panel: number }>(
          "({ table: document.querySelector('#mapping-fields').getBoundingClientRect().width, " +
            "panel: document.querySelector('#mappings').getBoundingClientRect().width })",
        );
        expect(table, 'the fields table uses the panel width').toBeGreaterThan(panel * 0.9);
      } else {
        // On a phone each row is a card: its pickers one under the other, each as wide as the card.
        const picker = await page.getByRole('combobox', { name: 'Rule for jobtitle' }).boundingBox();
        expect(picker!.width).toBeGreaterThan(width * 0.6);
      }
      await page.screenshot({ path: new URL(`admin-mapping-editor-${width}.png`, ARTIFACTS).pathname, fullPage: true });
      // A draft with problems is not offered for saving; without them, Save asks with the diff.
      await page
        .getByRole('button', { name: `Remove row ${await page.locator('#mapping-fields tr.field-row').count()}` })
        .click();
      await draftChecked(page);
      await page.getByLabel('Author').fill('ops@example.com');
      await page.getByLabel('Comment').fill('layout check');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Save a new version of hubspot/contact?' });
      await dialog.waitFor();
      await fits('the save confirmation');
      await page.screenshot({ path: new URL(`admin-mapping-save-${width}.png`, ARTIFACTS).pathname });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    },
  );

  // A record is then found through those lists.
  it('offers the mapped objects as lists on Records, with people-readable names', async () => {
    await open(1280);
    await show('Records');
    const connections = await page.getByLabel('Connection').locator('option').allTextContents();
    expect(connections).toContain('HubSpot');
    await page.getByLabel('Connection').selectOption('hubspot');
    expect(await page.getByLabel('Object').locator('option').allTextContents()).toContain('Contact');
    expect(await page.getByLabel('Object').inputValue()).toBe('contact');
  });
});
