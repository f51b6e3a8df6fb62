/**
 * Field rows written back into a mapping document: what did not change stays byte for byte (comments,
 * wrapped lists, other sections), a changed row keeps its style and the comment above it, and the
 * result reads back as exactly the rows sent.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { RenderError, renderFields, type FieldRow } from '../../src/mapping/render-fields.js';

const FILES = ['hubspot/contact', 'hubspot/company', 'salesforce/contact', 'salesforce/lead', 'salesforce/account'];
const read = (name: string) => readFileSync(new URL(`../../mappings/${name}.yaml`, import.meta.url), 'utf8');
const rowsOf = (text: string) => (parse(text) as { fields: FieldRow[] }).fields;

/** The lines of `after` that are not in `before` and the other way round, as a set diff (enough here). */
function changedLines(before: string, after: string) {
  const a = before.split('\n');
  const b = after.split('\n');
  return { removed: a.filter((l) => !b.includes(l)), added: b.filter((l) => !a.includes(l)) };
}

describe('renderFields', () => {
  it.each(FILES)('gives %s back unchanged when no row changed', (name) => {
    const text = read(name);
    expect(renderFields(text, rowsOf(text))).toBe(text);
  });

  it('changes only the edited row, in its own style, and reads back as the rows sent', () => {
    const text = read('hubspot/contact');
    const rows = rowsOf(text);
    rows.find((r) => r.target === 'jobtitle')!.rule = 'fill_empty';
    const out = renderFields(text, rows);
    expect(changedLines(text, out)).toEqual({
      removed: ['  - { target: jobtitle, from: position }'],
      added: ['  - { target: jobtitle, from: position, rule: fill_empty }'],
    });
    expect(rowsOf(out)).toEqual(rows);
  });

  it(
    'keeps the comment above a row whose transform changed, drops a removed row with its comment, ' +
      'and writes new rows',
    () => {
      const text = read('hubspot/contact');
      expect(text).toContain('  # Numbers marked do-not-disturb');
      const rows = rowsOf(text);
      const phone = rows.find((r) => r.target === 'phone')!;
      phone.transform = 'pick_phone';
      rows.push({ target: 'hs_twitter', from: 'twitter', rule: 'fill_empty' });
      let out = renderFields(text, rows);
      expect(out).toContain(
        '  # Numbers marked do-not-disturb are never written here (allow_dnd is not set).\n' +
          '  - { target: phone, from: phones, transform: pick_phone }\n',
      );
      expect(out).toContain('  - { target: hs_twitter, from: twitter, rule: fill_empty }\n\nenriched_at:');
      expect(rowsOf(out)).toEqual(rows);

      out = renderFields(
        text,
        rows.filter((r) => r !== phone),
      );
      expect(out).not.toContain('do-not-disturb');
      expect(out).not.toContain('target: phone,');
      expect(out).toContain('# People found by discovery');
    },
  );

  it('changes a target in place when the picker replaced it', () => {
    const text = read('hubspot/contact');
    const rows = rowsOf(text);
    rows.find((r) => r.target === 'jobtitle')!.target = 'hs_job_title';
    const out = renderFields(text, rows);
    expect(changedLines(text, out)).toEqual({
      removed: ['  - { target: jobtitle, from: position }'],
      added: ['  - { target: hs_job_title, from: position }'],
    });
  });

  it('fills an empty list and refuses text that is not YAML', () => {
    expect(renderFields('crm: hubspot\nfields: []\n', [{ target: 'a', from: 'b' }])).toBe(
      'crm: hubspot\nfields:\n  - { target: a, from: b }\n',
    );
    expect(() => renderFields('crm: [hubspot\n', [])).toThrow(RenderError);
  });
});
