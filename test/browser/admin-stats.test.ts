/**
 * The Stats view's charts in a real Chromium against the whole stack, under the page's own CSP: after
 * contacts are enriched, every chart is drawn (a Chart.js instance on a named canvas) with the numbers
 * the series API gives, its "Show data" table says the same, and both agree with what happened (jobs
 * written, partner credits spent, CRM calls made, coverage of a filled property). A refresh keeps the
 * reader's scroll position and open tables; at 390 px with every table open nothing scrolls sideways.
 */
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settled, stateReaches } from '../e2e/probes.js';
import { ADMIN_TOKEN, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { browserSkipReason, launchChromium, cellTexts, signIn, watchForProblems } from './page-helpers.js';

const AXE_SOURCE: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin stats browser tests: ${skip}`);

/** The charts drawn whatever happened, then one field coverage chart per mapped object worked on. */
const CHARTS = ['enrichments', 'credits', 'crm-hubspot', 'crm-salesforce', 'match-rate', 'cache', 'queue'];
const CONTACT_COVERAGE = 'coverage-hubspot-contact';
const CONTACTS = 3;
const n = (value: number) => value.toLocaleString('en');
const total = (values: (number | null)[]) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0);

interface Series {
  range: string;
  steps: string[];
  series: {
    enrichments: Record<'written' | 'unchanged' | 'no_match' | 'failed', number[]>;
    matchRate: (number | null)[];
    cache: { hits: number[]; misses: number[] };
    creditsPerDay: { day: string; used: number; budget: number }[];
    crmCalls: Record<string, { crm: string; calls: number[]; limitPerStep: number | null }>;
    queue: { depth: (number | null)[]; oldestAgeSeconds: (number | null)[] };
  };
  fieldCoverage: { crm: string; object: string; property: string; records: number; before: number; after: number }[];
}

interface Drawn {
  key: string;
  caption: string;
  label: string | null;
  role: string | null;
  summary: string;
  datasets: { label: string; data: (number | null)[] }[];
  labels: string[];
}

describe.skipIf(skip)('admin page stats charts', () => {
  const stack = useStack();
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    for (const p of partnerPeople(stack.sandboxes, CONTACTS, 700)) {
      const { id } = stack.sandboxes.hubspot.createContact({ email: p.workEmail! });
      await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
    }
    await settled(stack);
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(() => {
    problems = [];
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  async function open(
    options: { width?: number; height?: number; bypassCSP?: boolean; clock?: boolean } = {},
  ): Promise<void> {
    context = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
      bypassCSP: options.bypassCSP ?? false,
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    // A CSP refusal shows as a console error: Chart.js must draw under the page's policy as it is.
    watchForProblems(page, problems, { warnings: true });
    if (options.clock) await page.clock.install();
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Stats', exact: true }).click();
    await page
      .locator(`#stats-charts figure[data-chart="${CONTACT_COVERAGE}"] details table`)
      .waitFor({ state: 'attached' });
    await expect
      .poll(() =>
        page.evaluate<boolean>(
          "[...document.querySelectorAll('#stats-charts canvas')].every((c) => window.Chart?.getChart(c))",
        ),
      )
      .toBe(true);
  }

  /** Every figure as the page has it: caption, the canvas's role and name, and the data of its Chart.js instance. */
  function drawn(): Promise<Drawn[]> {
    return page.evaluate<Drawn[]>(`[...document.querySelectorAll('#stats-charts figure')].map((f) => {
      const canvas = f.querySelector('canvas');
      const chart = window.Chart.getChart(canvas);
      return {
        key: f.dataset.chart, caption: f.querySelector('figcaption').textContent,
        label: canvas.getAttribute('aria-label'), role: canvas.getAttribute('role'),
        summary: f.querySelector('details > summary').textContent,
        datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })), labels: chart.data.labels,
      };
    })`);
  }

  const rows = (key: string) => cellTexts(page, `#stats-charts figure[data-chart="${key}"]`);

  it('draws every chart with the numbers of the series API, which agree with what happened', async () => {
    await open();
    // A service up for minutes opens on the last hour, where its data is more than a sliver at the edge.
    await expect.poll(() => page.locator('#stats-charts').getAttribute('data-range')).toBe('1h');
    expect(await page.locator('#stats').getByLabel('Period').inputValue()).toBe('1h');
    const { body: api } = await stack.running.admin<Series>('GET', '/stats/series?range=1h');
    const { body: now } = await stack.running.admin<{
      jobsByOutcome: Record<string, number>;
      today: { partnerLookups: number };
      crmCalls: Record<string, { calls: number }>;
    }>('GET', '/stats');
    const figures = await drawn();
    expect(figures.map((f) => f.key).slice(0, CHARTS.length)).toEqual(CHARTS);
    expect(figures.map((f) => f.key).slice(CHARTS.length)).toContain(CONTACT_COVERAGE);
    for (const f of figures) {
      expect(f.caption.length, f.key).toBeGreaterThan(10);
      expect(f.role, f.key).toBe('img');
      expect(f.label?.length, f.key).toBeGreaterThan(20);
      expect(f.summary).toBe('Show data');
    }
    const chart = (key: string) => figures.find((f) => f.key === key)!;

    // Enrichments: the chart, its table and the API say the same; written covers every contact enriched.
    const e = api.series.enrichments;
    expect(chart('enrichments').datasets.map((d) => d.data)).toEqual([e.written, e.unchanged, e.no_match, e.failed]);
    expect(total(e.written)).toBe(now.jobsByOutcome.enriched);
    expect(total(e.written)).toBeGreaterThanOrEqual(CONTACTS);
    const enrichRows = await rows('enrichments');
    expect(enrichRows).toHaveLength(api.steps.length);
    expect(enrichRows.map((r) => r.slice(1))).toEqual(
      api.steps.map((_, i) => [n(e.written[i]!), n(e.unchanged[i]!), n(e.no_match[i]!), n(e.failed[i]!)]),
    );
    expect(chart('enrichments').label).toContain(`${n(total(e.written))} written`);
    expect(chart('enrichments').caption).toBe('Enrichments by outcome, per minute');

    // Credits: today's bar is what the budget counted.
    const today = api.series.creditsPerDay.at(-1)!;
    expect(today.used).toBe(now.today.partnerLookups);
    expect(today.used).toBeGreaterThan(0);
    expect(chart('credits').datasets[0]!.data.at(-1)).toBe(today.used);
    expect((await rows('credits')).at(-1)).toEqual([
      today.day,
      n(today.used),
      n(today.budget),
      n(Math.max(0, today.budget - today.used)),
    ]);
    // A few credits against a budget of thousands: the axis fits what was used and the budget is said in words.
    expect(today.used * 4).toBeLessThan(today.budget);
    expect(chart('credits').datasets.map((d) => d.label)).toEqual(['Credits used']);
    expect(chart('credits').caption).toBe(
      `Partner credits per day (the budget, ${n(today.budget)} a day, is far above)`,
    );
    expect(chart('credits').label).toContain(`${n(today.used)} of a budget of ${n(today.budget)} used today`);

    // CRM calls: counted calls reach the chart, under a known limit.
    const hubspot = api.series.crmCalls.hubspot!;
    expect(total(hubspot.calls)).toBeGreaterThan(0);
    expect(total(hubspot.calls)).toBeLessThanOrEqual(now.crmCalls.hubspot!.calls);
    expect(hubspot.limitPerStep).toBeGreaterThan(0);
    expect(chart('crm-hubspot').datasets.map((d) => d.label)).toEqual(['Calls', 'Limit']);
    expect(chart('crm-hubspot').datasets[0]!.data).toEqual(hubspot.calls);
    expect((await rows('crm-hubspot')).map((r) => r.slice(1))).toEqual(
      hubspot.calls.map((c) => [n(c), n(hubspot.limitPerStep!)]),
    );

    // Match rate: matched (written or unchanged) of the records looked up, in each step; the contacts' step has one.
    const rates = api.steps.map((_, i) => {
      const matched = e.written[i]! + e.unchanged[i]!;
      return matched + e.no_match[i]! ? matched / (matched + e.no_match[i]!) : null;
    });
    expect(api.series.matchRate).toEqual(rates);
    expect(rates.some((r) => r !== null && r > 0)).toBe(true);
    expect((await rows('match-rate')).map((r) => r[1])).toEqual(
      rates.map((r) => (r === null ? 'none looked up' : `${(r * 100).toFixed(1)} %`)),
    );
    expect(chart('match-rate').datasets[0]!.data).toEqual(
      rates.map((r) => (r === null ? null : Math.round(r * 1000) / 10)),
    );

    // Cache: the lookups of the run, each answered by the cache or the partner.
    expect(total(api.series.cache.hits) + total(api.series.cache.misses)).toBeGreaterThanOrEqual(CONTACTS);
    expect(chart('cache').datasets.map((d) => d.data)).toEqual([api.series.cache.hits, api.series.cache.misses]);

    // Queue: at least the sample taken for this answer, with the queues drained.
    const samples = api.series.queue.depth.filter((d) => d !== null);
    expect(samples.length).toBeGreaterThan(0);
    expect(chart('queue').datasets[0]!.data).toEqual(api.series.queue.depth);
    const waited = api.series.queue.oldestAgeSeconds.some((a) => a !== null);
    expect(chart('queue').label).toMatch(
      waited ? /the oldest waiting job waited up to \d/ : /no job was waiting at any sample\.$/,
    );
    expect(chart('queue').label).not.toContain('no sample.');

    // Coverage: a property the partner filled is filled on at least as many records after as before.
    const filled = api.fieldCoverage.filter((c) => c.crm === 'hubspot' && c.object === 'contact' && c.after > c.before);
    expect(filled.length).toBeGreaterThan(0);
    for (const c of api.fieldCoverage) expect(c.after, c.property).toBeGreaterThanOrEqual(c.before);
    expect(filled[0]!.records).toBeGreaterThanOrEqual(CONTACTS);
    const contacts = api.fieldCoverage.filter((c) => c.crm === 'hubspot' && c.object === 'contact');
    const row = (await rows(CONTACT_COVERAGE)).find((r) => r[0] === filled[0]!.property)!;
    expect(row[1]).toBe(n(filled[0]!.records));
    expect(row[3]).toMatch(new RegExp(`^${n(filled[0]!.after)} \\(`));
    expect(chart(CONTACT_COVERAGE).labels).toEqual(contacts.map((c) => c.property));
    const share = (part: number, of: number) => (of ? Math.round((part / of) * 1000) / 10 : 0);
    expect(chart(CONTACT_COVERAGE).datasets.map((d) => d.data)).toEqual([
      contacts.map((c) => share(c.before, c.records)),
      contacts.map((c) => share(c.after, c.records)),
    ]);
  });

  it('redraws a chosen period and refreshes in place, keeping the scroll position and open tables', async () => {
    await open({ height: 600, clock: true });
    await page.locator('#stats').getByLabel('Period').selectOption('7d');
    await expect.poll(() => page.locator('#stats-charts').getAttribute('data-range')).toBe('7d');
    // Hourly steps over a week, in the chart and its table alike.
    expect((await drawn()).find((f) => f.key === 'enrichments')!.labels).toHaveLength(7 * 24);
    expect(await rows('enrichments')).toHaveLength(7 * 24);
    const details = page.locator(`#stats-charts figure[data-chart="${CONTACT_COVERAGE}"] details`);
    await details.locator('summary').click();
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const before = await page.evaluate<number>('window.scrollY');
    expect(before).toBeGreaterThan(300);
    const asOf = await page.locator('#stats-result .as-of time').getAttribute('datetime');
    const refreshed = page.waitForResponse((r) => r.url().includes('/stats/series?range=7d'));
    await page.clock.runFor(31_000);
    await refreshed;
    await expect.poll(() => page.locator('#stats-result .as-of time').getAttribute('datetime')).not.toBe(asOf);
    expect(await page.evaluate<number>('window.scrollY')).toBe(before);
    expect(await details.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
  });

  it('fits 390 px with every table open, with no serious accessibility violation', async () => {
    await open({ width: 390, bypassCSP: true });
    for (const summary of await page.locator('#stats-charts summary').all()) await summary.click();
    const widths = await page.evaluate<{ page: number; figures: number[] }>(
      '({ page: document.documentElement.scrollWidth, ' +
        "figures: [...document.querySelectorAll('#stats-charts figure')]" +
        '.map((f) => f.getBoundingClientRect().right) })',
    );
    expect(widths.page).toBeLessThanOrEqual(390);
    for (const right of widths.figures) expect(right).toBeLessThanOrEqual(390);
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate<
      string[]
    >(`axe.run(document.getElementById('stats')).then(({ violations }) => violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
    expect(violations).toEqual([]);
  });

  it('serves Chart.js itself, under the page policy, and refuses an unknown period', async () => {
    const script = await fetch(`${stack.running.url}/admin/assets/vendor/chart.umd.min.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await script.text()).toContain('Chart.js v4.');
    expect((await fetch(`${stack.running.url}/admin/assets/vendor/package.json`)).status).toBe(404);
    // jsdiff's ES modules, which the mapping diff imports: its modules only, under the same policy.
    const diff = await fetch(`${stack.running.url}/admin/assets/vendor/diff/index.js`);
    expect(diff.status).toBe(200);
    expect(diff.headers.get('content-type')).toMatch(/javascript/);
    expect(diff.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await diff.text()).toContain("from './diff/line.js'");
    for (const path of ['index.d.ts', 'package.json', 'index.js.map', '../package.json', 'nothing.js']) {
      expect((await fetch(`${stack.running.url}/admin/assets/vendor/diff/${path}`)).status, path).toBe(404);
    }
    const wrong = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'GET',
      '/stats/series?range=2y',
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'range' } });
  });
});
