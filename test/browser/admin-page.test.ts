/**
 * The admin page in a real Chromium against the whole stack: it asks for the token, refuses a wrong
 * one with the API's message, validates, previews, saves and rolls back mappings, shows a record's
 * state and audit trail, lists and replays dead letters, and shows the same stats as the API. One
 * browser per file; each test gets a fresh context, so the token in sessionStorage does not leak.
 */
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settled, stateReaches } from '../e2e/probes.js';
import { ADMIN_TOKEN, eventually, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import {
  browserSkipReason,
  launchChromium,
  cellTexts,
  definitionTexts,
  openMapping,
  showYaml,
  signIn,
} from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping admin page browser tests: ${skip}`);

const HEADLINE_FIELD =
  '  - target: crm_enrich_headline\n    from: headline\n    custom: { label: Headline, type: string }\n';

describe.skipIf(skip)('admin page', () => {
  const stack = useStack({ service: { queue: { maxAttempts: 1 } } });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let offset = 400;

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
    // A script error or a CSP refusal means some part of the page silently does not work.
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) problems.push(`csp: ${message.text()}`);
    });
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  async function enrichedContact() {
    const [p] = partnerPeople(stack.sandboxes, 1, offset++);
    const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
    await settled(stack);
    return { id, person: p!.person };
  }

  it('is served under a strict Content-Security-Policy with no inline script', async () => {
    const res = await fetch(`${stack.running.url}/admin`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(1);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const script = await fetch(`${stack.running.url}/admin/assets/admin.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${stack.running.url}/admin/assets/admin-page.ts`)).status).toBe(404);
    const slash = await fetch(`${stack.running.url}/admin/`, { redirect: 'manual' });
    expect(slash.status).toBe(301);
    expect(new URL(slash.headers.get('location')!, `${stack.running.url}/admin/`).pathname).toBe('/admin');
  });

  it('asks for the token, then lists every active mapping; the tab remembers it until sign-out', async () => {
    await page.goto(`${stack.running.url}/admin`);
    await expect.poll(() => page.getByLabel('Admin token').isVisible()).toBe(true);
    expect(await page.locator('#mappings').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Stats' }).isVisible()).toBe(false);

    await signIn(page, stack.running.url, ADMIN_TOKEN);
    const api = await stack.running.admin<{
      mappings: { crm: string; object: string; version: number; author: string }[];
    }>('GET', '/mappings');
    const rows = await cellTexts(page, '#mapping-list');
    expect(rows.map((r) => r[0]).sort()).toEqual(api.body.mappings.map((m) => `${m.crm}/${m.object}`).sort());
    const contact = rows.find((r) => r[0] === 'hubspot/contact')!;
    const fromApi = api.body.mappings.find((m) => m.crm === 'hubspot' && m.object === 'contact')!;
    expect(contact.slice(1, 3)).toEqual([
      String(fromApi.version),
      fromApi.author.startsWith('file:') ? 'Shipped with the service' : fromApi.author,
    ]);
    expect(rows.every((r) => !r[2]!.startsWith('file:'))).toBe(true);

    await page.reload();
    await expect.poll(() => page.locator('#mapping-list tbody tr').count()).toBe(rows.length);
    expect(await page.locator('#sign-in').isVisible()).toBe(false);

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.getByLabel('Admin token').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await page.locator('#mappings').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('shows the 401 message for a wrong token and keeps asking for it', async () => {
    await page.goto(`${stack.running.url}/admin`);
    // Says where the token is: nothing prints it at start-up.
    const where = (await page.locator('#sign-in p').first().textContent())!;
    expect(where).toContain('ADMIN_TOKEN');
    expect(where).toContain('.data/admin-token');
    expect(where).not.toContain('prints it');
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const message = page.locator('#sign-in-message [role="alert"]');
    await expect
      .poll(() => message.textContent())
      .toContain('send the admin token as "Authorization: Bearer <ADMIN_TOKEN>"');
    expect(await message.textContent()).toContain('401');
    expect(await page.locator('#mappings').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Mappings' }).isVisible()).toBe(false);
    expect(await page.getByLabel('Admin token').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('validates the YAML in the editor: every problem with its field path, or OK', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await openMapping(page, 'hubspot/contact');
    await showYaml(page);
    const editor = page.getByLabel('Mapping document (YAML)');
    const document = await editor.inputValue();
    expect(document).toContain(HEADLINE_FIELD);

    const validate = async (text: string) => {
      expect(text).not.toBe(document);
      await editor.fill(text);
      await page.getByRole('button', { name: 'Validate' }).click();
      await expect.poll(() => page.locator('#validate-result [role="alert"]').count()).toBe(1);
      expect(await page.locator('#validate-result').textContent()).toContain('422');
      return cellTexts(page, '#validate-result');
    };
    const badRule = await validate(
      document.replace(
        '- { target: jobtitle, from: position }',
        '- { target: jobtitle, from: position, rule: sometimes }',
      ),
    );
    expect(badRule.map((p) => p[0])).toEqual(['fields > jobtitle > rule']);
    expect(badRule[0]![1]).toBe('bad_rule');
    // Every problem at once, each with its own path.
    const twoUnknownSources = await validate(
      document.replace('from: seniority', 'from: seniority_level').replace('from: department', 'from: departmnt'),
    );
    expect(twoUnknownSources.map((p) => p[0])).toEqual(
      expect.arrayContaining(['fields > hs_seniority > from', 'fields > crm_enrich_department > from']),
    );
    expect(twoUnknownSources.find((p) => p[0] === 'fields > crm_enrich_department > from')![2]).toContain('departmnt');

    await editor.fill(document);
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect
      .poll(() => page.locator('#validate-result').textContent())
      .toContain('OK: a valid mapping for hubspot/contact');
  });

  it('saves a new version, shown as active in a grown versions list, and rolls back to the previous one', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await openMapping(page, 'hubspot/contact');
    const before = await cellTexts(page, '#mapping-versions');
    const activeBefore = before.find((r) => r[4] === 'Active')![0];
    await showYaml(page);
    const editor = page.getByLabel('Mapping document (YAML)');
    await editor.fill((await editor.inputValue()).replace(HEADLINE_FIELD, ''));
    // Markup in a comment must show as text, never run.
    const comment = 'headline is noise <img src=x onerror="window.__injected=1">';
    await page.getByLabel('Author').fill('ops@example.com');
    await page.getByLabel('Comment').fill(comment);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // Saving asks first, showing what changes.
    const confirmSave = page.getByRole('dialog', { name: 'Save a new version of hubspot/contact?' });
    await confirmSave.waitFor();
    expect(await confirmSave.locator('li.removed').allTextContents()).toEqual(
      HEADLINE_FIELD.trimEnd()
        .split('\n')
        .map((line) => `removed: - ${line}`),
    );
    await confirmSave.getByRole('button', { name: 'Save version' }).click();

    const saved = Number(activeBefore) + 1;
    await expect
      .poll(() => page.locator('#save-result').textContent())
      .toContain(`Saved version ${saved} of hubspot/contact; it is active now.`);
    const after = await cellTexts(page, '#mapping-versions');
    expect(after.length).toBe(before.length + 1);
    expect(after.find((r) => r[0] === String(saved))).toEqual([
      String(saved),
      'ops@example.com',
      comment,
      expect.any(String),
      'Active',
      '',
    ]);
    expect(after.find((r) => r[0] === activeBefore)![4]).toBe(`Roll back to version ${activeBefore}`);
    expect(await page.locator('#mapping-detail-title').textContent()).toContain(`version ${saved} is active`);
    expect((await cellTexts(page, '#mapping-list')).find((r) => r[0] === 'hubspot/contact')!.slice(1, 4)).toEqual([
      String(saved),
      'ops@example.com',
      comment,
    ]);
    expect(await page.locator('#mappings img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __injected?: number }).__injected)).toBeUndefined();
    const shown = await stack.running.admin<{ active: { version: number; document: string } }>(
      'GET',
      '/mappings/hubspot/contact',
    );
    expect(shown.body.active.version).toBe(saved);
    expect(shown.body.active.document).not.toContain(HEADLINE_FIELD);

    await page.getByRole('button', { name: `Roll back to version ${activeBefore}` }).click();
    await page
      .getByRole('dialog', { name: `Roll back hubspot/contact to version ${activeBefore}?` })
      .getByRole('button', { name: 'Roll back', exact: true })
      .click();
    await expect
      .poll(() => page.locator('#versions-result').textContent())
      .toContain(`Rolled back: version ${activeBefore} of hubspot/contact is active now.`);
    const rolled = await cellTexts(page, '#mapping-versions');
    expect(rolled.length).toBe(after.length);
    expect(rolled.find((r) => r[0] === activeBefore)![4]).toBe('Active');
    expect(rolled.find((r) => r[0] === String(saved))![4]).toBe(`Roll back to version ${saved}`);
    expect(await page.getByLabel('Mapping document (YAML)').inputValue()).toContain(HEADLINE_FIELD);
    expect(
      (await stack.running.admin<{ active: { version: number } }>('GET', '/mappings/hubspot/contact')).body.active
        .version,
    ).toBe(Number(activeBefore));
  });

  it('previews the edited mapping on a real enriched record, and shows that record with its audit trail', async () => {
    const { id, person } = await enrichedContact();
    expect(person.headline).toBeTruthy();
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await openMapping(page, 'hubspot/contact');
    await showYaml(page);
    const editor = page.getByLabel('Mapping document (YAML)');
    await editor.fill(
      (await editor.inputValue()).replace(
        '- { target: jobtitle, from: position }',
        '- { target: jobtitle, from: headline, rule: overwrite }',
      ),
    );
    await page.getByLabel('Preview on record id').fill(id);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-result table').count()).toBe(1);
    const rows = await cellTexts(page, '#preview-result');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.find((r) => r[0] === 'jobtitle')!.slice(0, 5)).toEqual([
      'jobtitle',
      person.position,
      person.headline,
      'overwrite',
      'write',
    ]);
    // The changed title and the enriched-at stamp a run writes with it.
    expect(await page.locator('#preview-result').textContent()).toContain('would write 2 properties');
    expect(stack.sandboxes.hubspot.getContact(id)!.jobtitle).toBe(person.position);

    await page.getByRole('button', { name: 'Records' }).click();
    await page.getByLabel('Id, e-mail or name').fill(id);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(async () => (await definitionTexts(page, '#record-result')).Status).toBe('Enriched');
    const audit = await cellTexts(page, '#record-result');
    expect(audit.find((r) => r[0] === 'jobtitle')?.[2]).toBe(person.position);

    await page.getByRole('button', { name: 'Enrich now' }).click();
    await expect.poll(() => page.locator('#records-message').textContent()).toContain('Queued ahead of bulk work');
    await settled(stack);
  });

  it('lists dead letters with their reason, replays one, then all, to success', async () => {
    stack.sandboxes.partner.setFailRate(1);
    const ids = partnerPeople(stack.sandboxes, 2, offset).map(
      (p) => stack.sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
    );
    offset += 2;
    await eventually(
      async () => {
        const { body } = await stack.running.admin<{ deadLetters: { data: { recordId: string } }[] }>(
          'GET',
          '/dead-letters',
        );
        return ids.every((id) => body.deadLetters.some((d) => d.data.recordId === id)) ? true : undefined;
      },
      20_000,
      'both contacts to reach the dead letter',
    );
    stack.sandboxes.partner.setFailRate(0);

    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Dead letters' }).click();
    const [first, second] = ids.map((id) => `HubSpot contact ${id}`);
    await expect
      .poll(async () =>
        (await cellTexts(page, '#dead-letter-list')).filter((r) => r[0] === first || r[0] === second).map((r) => r[4]),
      )
      .toEqual(
        // What became of the job first, then the error its last attempt met.
        [first, second].map(() =>
          expect.stringMatching(
            /^parked because (its only attempt failed with|all \d+ attempts failed, the last with) server_error: GET \/\w+: The partner API failed/,
          ),
        ),
      );

    // Grouped by their error: both failed on the partner, so one group holds them.
    const groups = await cellTexts(page, '#dead-letter-groups');
    const partnerGroup = groups.find((r) => /partner API failed/.test(r[0]!));
    expect(Number(partnerGroup?.[1])).toBeGreaterThanOrEqual(2);

    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: `Replay ${first}` }).click();
    await expect.poll(() => page.locator('#dead-letters-message').textContent()).toContain('Replayed 1 job;');
    expect((await cellTexts(page, '#dead-letter-list')).map((r) => r[0])).toEqual([second]);
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: ids[0]! }, 'enriched');

    await page.getByRole('button', { name: 'Replay all' }).click();
    await expect.poll(() => page.locator('#dead-letters-message').textContent()).toContain('Replayed 1 job;');
    expect(await cellTexts(page, '#dead-letter-list')).toEqual([[expect.stringContaining('No dead letters')]]);
    expect(asked).toEqual([
      expect.stringMatching(/^Replay 1 dead letter\?/),
      expect.stringMatching(/^Replay every dead letter\?/),
    ]);
    expect(await page.getByRole('button', { name: 'Replay all' }).isDisabled()).toBe(true);
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: ids[1]! }, 'enriched');
    await settled(stack);
  });

  it('shows stats that agree with the API', async () => {
    await enrichedContact();
    await settled(stack);
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Stats' }).click();
    await expect.poll(() => page.locator('#stats-result dl').count()).toBe(1);
    const shown = await definitionTexts(page, '#stats-result');
    const { body: stats } = await stack.running.admin<{
      queueDepth: number;
      deadLetters: number;
      matchRate: number;
      records: { enriched: number; no_match: number };
      jobsByOutcome: Record<string, number>;
      today: { partnerLookups: number; cacheHits: number; budget: number; budgetLeft: number };
      crmCalls: Record<string, { calls: number }>;
    }>('GET', '/stats');
    const n = (value: number) => value.toLocaleString('en');
    expect(stats.today.partnerLookups).toBeGreaterThan(0);
    expect(shown).toMatchObject({
      'Queue depth': n(stats.queueDepth),
      'Dead letters': n(stats.deadLetters),
      'Match rate':
        `${(stats.matchRate * 100).toFixed(1)} % ` +
        `(${n(stats.records.enriched)} of ${n(stats.records.enriched + stats.records.no_match)} records)`,
      'Partner lookups today': n(stats.today.partnerLookups),
      'Cache hits today': n(stats.today.cacheHits),
      'Budget left today': `${n(stats.today.budgetLeft)} of ${n(stats.today.budget)}`,
    });
    const tables = await page
      .locator('#stats-result table')
      .evaluateAll((ts) => ts.map((t) => t.querySelector('caption')?.textContent));
    expect(tables).toEqual(['Jobs by outcome since the service started', 'Records by status', 'Queues', 'CRM calls']);
    expect(await page.locator('#stats-result .as-of time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const outcomes = Object.fromEntries(
      (await cellTexts(page, '#stats-result table:nth-of-type(1)')).map(([k, v]) => [k, v]),
    );
    expect(outcomes.Enriched).toBe(n(stats.jobsByOutcome.enriched!));
    const queues = (await cellTexts(page, '#stats-result table:nth-of-type(3)')).map((r) => r[0]);
    expect(queues.every((q) => !/[._]/.test(q!))).toBe(true);
    const crm = Object.fromEntries(
      (await cellTexts(page, '#stats-result table:nth-of-type(4)')).map(([k, v]) => [k, v]),
    );
    expect(crm.HubSpot).toBe(n(stats.crmCalls.hubspot!.calls));
  });
});
