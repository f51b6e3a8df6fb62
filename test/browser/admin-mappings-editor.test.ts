/**
 * The Mappings editor in a real Chromium against the whole stack: rows edited with the pickers (rule,
 * target), the YAML kept in step both ways, inline problems under their row with the API's own
 * messages, preview of the draft on an enriched record, save after a confirmation that shows the
 * diff, Compare, and roll back after a confirmation, each checked against the admin API.
 */
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settled, stateReaches } from '../e2e/probes.js';
import { ADMIN_TOKEN, partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import {
  browserSkipReason,
  launchChromium,
  cellTexts,
  openMapping,
  showYaml,
  signIn,
  draftChecked,
  watchForProblems,
} from './page-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping mappings editor browser tests: ${skip}`);

const JOBTITLE = '  - { target: jobtitle, from: position }';
const JOBTITLE_FILL_EMPTY = '  - { target: jobtitle, from: position, rule: fill_empty }';

interface MappingView {
  active: { version: number; document: string; author: string; comment: string };
  versions: { version: number; active: boolean }[];
}
interface ApiProblem {
  field: string;
  code: string;
  message: string;
}

describe.skipIf(skip)('admin page: mappings editor', () => {
  const stack = useStack();
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    problems = [];
    // Editing is the normal state of a draft with problems: no request of the editor may fail for it.
    watchForProblems(page, problems, { warnings: false });
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  const yaml = () => page.getByLabel('Mapping document (YAML)');
  const active = async () => (await stack.running.admin<MappingView>('GET', '/mappings/hubspot/contact')).body;

  it(
    'offers the CRM properties with label and type, the partner fields, transforms and rules, ' +
      'as the API lists them',
    async () => {
      await signIn(page, stack.running.url, ADMIN_TOKEN);
      await openMapping(page, 'hubspot/contact');
      await draftChecked(page);
      const { body: lists } = await stack.running.admin<{
        targets: { name: string; label: string; type: string }[];
        rules: { name: string }[];
        transforms: { name: string }[];
      }>('GET', '/mappings/hubspot/contact/fields');
      const target = page.getByRole('combobox', { name: 'Target property, row 3' });
      expect(await target.inputValue()).toBe('jobtitle');
      expect(await target.locator('option:checked').textContent()).toBe('Job Title (jobtitle, string)');
      const offered = await target
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value).filter(Boolean));
      expect(offered).toEqual(lists.targets.map((t) => t.name));
      // Read-only properties are listed but cannot be chosen.
      expect(await target.locator('option[value="hs_object_id"]').isDisabled()).toBe(true);

      const source = page.getByRole('combobox', { name: 'Source field for jobtitle' });
      expect(await source.inputValue()).toBe('position');
      const groups = await source.locator('optgroup').evaluateAll((gs) => gs.map((g) => g.getAttribute('label')));
      expect(groups).toEqual(expect.arrayContaining(['Person (partner person)', 'Current company (partner person)']));
      expect(
        await source
          .locator('optgroup[label="Current company (partner person)"] option[value="current_company.name"]')
          .count(),
      ).toBe(1);

      const rules = await page
        .getByRole('combobox', { name: 'Rule for jobtitle' })
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
      expect(rules).toEqual(['', ...lists.rules.map((r) => r.name)]);
      const transforms = await page
        .getByRole('combobox', { name: 'Transform for jobtitle' })
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
      expect(transforms).toEqual(['', ...lists.transforms.map((t) => t.name)]);
      // A transform with arguments keeps them while its name stays.
      expect(
        await page.getByRole('combobox', { name: 'Transform for phone' }).locator('option:checked').textContent(),
      ).toBe('pick_phone (kind: "main")');
      expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    },
  );

  it(
    'edits with the pickers, shows problems under their row, previews, saves after a diff, ' +
      'compares and rolls back',
    async () => {
      const [p] = partnerPeople(stack.sandboxes, 1, 700);
      const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail! });
      await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
      await settled(stack);
      const before = await active();
      expect(before.active.document).toContain(`${JOBTITLE}\n`);

      await signIn(page, stack.running.url, ADMIN_TOKEN);
      await openMapping(page, 'hubspot/contact');
      await draftChecked(page);
      const save = page.getByRole('button', { name: 'Save', exact: true });
      expect(await save.isDisabled()).toBe(true);

      // The rule picker rewrites that one line of the YAML.
      await page.getByRole('combobox', { name: 'Rule for jobtitle' }).selectOption('fill_empty');
      await draftChecked(page);
      await showYaml(page);
      expect(await yaml().inputValue()).toBe(
        before.active.document.replace(`${JOBTITLE}\n`, `${JOBTITLE_FILL_EMPTY}\n`),
      );
      expect(await save.isDisabled()).toBe(false);

      // A target the CRM lacks, typed in the YAML: the rows follow, and the row shows the API's own message.
      await yaml().fill((await yaml().inputValue()).replace('target: lastname,', 'target: lastnme,'));
      await expect
        .poll(() => page.getByRole('combobox', { name: 'Target property, row 2' }).inputValue())
        .toBe('lastnme');
      await draftChecked(page, 'problems');
      const { body: refused } = await stack.running.admin<{ error: { details: { problems: ApiProblem[] } } }>(
        'POST',
        '/mappings/validate',
        { document: await yaml().inputValue() },
      );
      const expected = refused.error.details.problems;
      expect(expected.map((x) => [x.field, x.code])).toEqual([['fields > lastnme > target', 'unknown_property']]);
      const rowProblems = page.getByRole('list', { name: 'Problems in lastnme' });
      expect(await rowProblems.textContent()).toBe(`${expected[0]!.field}: ${expected[0]!.message}`);
      expect(expected[0]!.message).toContain('did you mean "lastname"?');
      expect(await page.getByRole('combobox', { name: 'Target property, row 2' }).getAttribute('aria-invalid')).toBe(
        'true',
      );

      // Fixed with the target picker: the problem goes, and the YAML has the property back.
      await page.getByRole('combobox', { name: 'Target property, row 2' }).selectOption('lastname');
      await draftChecked(page);
      expect(await page.locator('#mapping-fields tr.row-problems').count()).toBe(0);
      expect(await yaml().inputValue()).toBe(
        before.active.document.replace(`${JOBTITLE}\n`, `${JOBTITLE_FILL_EMPTY}\n`),
      );

      // Preview of the draft on the enriched record: the new rule decides jobtitle.
      await page.getByLabel('Preview on record id').fill(id);
      await page.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.locator('#preview-result table').count()).toBe(1);
      const jobtitle = (await cellTexts(page, '#preview-result')).find((r) => r[0] === 'jobtitle')!;
      expect(jobtitle.slice(0, 4)).toEqual(['jobtitle', p!.person.position, p!.person.position, 'fill_empty']);
      expect(jobtitle[4]).toBeTruthy();
      expect(jobtitle[5]).toBeTruthy();

      // Save: the confirmation shows the changed line, Cancel saves nothing, Save version saves.
      await page.getByLabel('Author').fill('ops@example.com');
      await page.getByLabel('Comment').fill('fill the job title only when it is empty');
      await save.click();
      const dialog = page.getByRole('dialog', { name: 'Save a new version of hubspot/contact?' });
      await dialog.waitFor();
      expect(await dialog.locator('li.removed').allTextContents()).toEqual([`removed: - ${JOBTITLE}`]);
      expect(await dialog.locator('li.added').allTextContents()).toEqual([`added: + ${JOBTITLE_FILL_EMPTY}`]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await active()).active.version).toBe(before.active.version);
      await save.click();
      await dialog.getByRole('button', { name: 'Save version' }).click();
      const saved = before.active.version + 1;
      await expect
        .poll(() => page.locator('#save-result').textContent())
        .toContain(`Saved version ${saved} of hubspot/contact; it is active now.`);
      const after = await active();
      expect(after.active).toMatchObject({
        version: saved,
        author: 'ops@example.com',
        comment: 'fill the job title only when it is empty',
      });
      expect(after.active.document).toBe(before.active.document.replace(`${JOBTITLE}\n`, `${JOBTITLE_FILL_EMPTY}\n`));
      await draftChecked(page);
      expect(await save.isDisabled()).toBe(true);
      expect(await page.getByRole('combobox', { name: 'Rule for jobtitle' }).inputValue()).toBe('fill_empty');

      // Compare an older version with the active one.
      await page
        .getByRole('button', { name: `Compare version ${before.active.version} with the active version` })
        .click();
      await expect
        .poll(() => page.locator('#version-diff li.added').allTextContents())
        .toEqual([`added: + ${JOBTITLE_FILL_EMPTY}`]);
      expect(await page.locator('#version-diff li.removed').allTextContents()).toEqual([`removed: - ${JOBTITLE}`]);

      // Roll back, after a confirmation; cancelling it changes nothing.
      const rollBack = page.getByRole('button', { name: `Roll back to version ${before.active.version}` });
      const confirm = page.getByRole('dialog', {
        name: `Roll back hubspot/contact to version ${before.active.version}?`,
      });
      await rollBack.click();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      expect((await active()).active.version).toBe(saved);
      await rollBack.click();
      await confirm.waitFor();
      expect(await confirm.locator('li.removed').allTextContents()).toEqual([`removed: - ${JOBTITLE_FILL_EMPTY}`]);
      await confirm.getByRole('button', { name: 'Roll back', exact: true }).click();
      await expect
        .poll(() => page.locator('#versions-result').textContent())
        .toContain(`Rolled back: version ${before.active.version} of hubspot/contact is active now.`);
      const rolled = await active();
      expect(rolled.active.version).toBe(before.active.version);
      expect(rolled.active.document).toBe(before.active.document);
      expect(await page.getByRole('combobox', { name: 'Rule for jobtitle' }).inputValue()).toBe('');
    },
  );

  it('adds and removes rows with the pickers; a new row is checked at once', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await openMapping(page, 'hubspot/contact');
    await draftChecked(page);
    const rowCount = await page.locator('#mapping-fields tr.field-row').count();
    await page.getByRole('button', { name: 'Add field' }).click();
    const n = rowCount + 1;
    const target = page.getByRole('combobox', { name: `Target property, row ${n}` });
    expect(
      await target.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement),
    ).toBe(true);
    await draftChecked(page, 'problems');
    expect(await page.getByRole('list', { name: `Problems in row ${n}` }).textContent()).toContain(
      `fields > ${n - 1} > target`,
    );
    await page.getByLabel('Author').fill('ops@example.com');
    await page.getByLabel('Comment').fill('not yet');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('#save-result').textContent()).toContain('Not saved: the draft has problems');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await target.selectOption('twitterhandle');
    await page
      .getByRole('combobox', { name: 'Source field for twitterhandle' })
      .selectOption('social_media.twitter.handle');
    await draftChecked(page);
    await showYaml(page);
    expect(await yaml().inputValue()).toContain(
      '  - { target: twitterhandle, from: social_media.twitter.handle }\n\nenriched_at:',
    );
    await page.getByRole('button', { name: 'Remove twitterhandle' }).click();
    await draftChecked(page);
    expect(await yaml().inputValue()).toBe((await active()).active.document);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);

    // YAML that does not parse has no rows to pick in: the pickers wait until it parses again.
    const document = await yaml().inputValue();
    await yaml().fill(document.replace('crm: hubspot', 'crm: [hubspot'));
    await draftChecked(page, 'problems');
    expect(await page.locator('#draft-status').textContent()).toContain(
      'The pickers are off until the YAML parses again.',
    );
    expect(await page.getByRole('button', { name: 'Add field' }).isDisabled()).toBe(true);
    expect(await page.getByRole('combobox', { name: 'Rule for jobtitle' }).isDisabled()).toBe(true);
    await yaml().fill(document);
    await draftChecked(page);
    expect(await page.getByRole('combobox', { name: 'Rule for jobtitle' }).isDisabled()).toBe(false);
    expect(await page.getByRole('button', { name: 'Add field' }).isDisabled()).toBe(false);
  });
  it('asks before opening another mapping over unsaved edits, and keeps them when told to', async () => {
    await signIn(page, stack.running.url, ADMIN_TOKEN);
    await openMapping(page, 'hubspot/contact');
    await draftChecked(page);
    const asked: string[] = [];
    let answer = false;
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void (answer ? dialog.accept() : dialog.dismiss());
    });
    // Nothing edited: it opens without asking.
    await openMapping(page, 'hubspot/company');
    await openMapping(page, 'hubspot/contact');
    await draftChecked(page);
    expect(asked).toEqual([]);

    await page.getByRole('combobox', { name: 'Rule for jobtitle' }).selectOption('overwrite');
    await draftChecked(page);
    await page.getByRole('button', { name: 'Open hubspot/company', exact: true }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe('Discard your unsaved changes to hubspot/contact?');
    expect(await page.locator('#mapping-detail-title').textContent()).toContain('hubspot/contact');
    expect(await page.getByRole('combobox', { name: 'Rule for jobtitle' }).inputValue()).toBe('overwrite');

    answer = true;
    await page.getByRole('button', { name: 'Open hubspot/company', exact: true }).click();
    await page.locator('#mapping-detail-title', { hasText: 'hubspot/company' }).waitFor();
    expect(asked).toHaveLength(2);
  });
});
