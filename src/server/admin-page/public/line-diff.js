// A line diff of two mapping documents (a changed line reads as its old text, then its new one), by
// jsdiff's diffLines (Myers' algorithm), whose ES modules the service serves from node_modules under the
// page's own origin: no build step, and nothing but 'self' in script-src.
import { diffLines as changes } from './vendor/diff/index.js';
import { h } from './core.js';

/** The lines of `before` and `after` as `{ kind: 'same' | 'removed' | 'added', text }`, in reading order. */
export function diffLines(before, after) {
  const out = [];
  // A last line with or without its newline is the same line to whoever reads the document.
  for (const part of changes(before, after, { ignoreNewlineAtEof: true })) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const lines = part.value.split('\n');
    if (lines.length > 1 && lines.at(-1) === '') lines.pop();
    for (const text of lines) out.push({ kind, text });
  }
  return out;
}

const CONTEXT = 3;

/**
 * The diff as a list: removed lines in <del>, added in <ins>, unchanged ones only near a change (the
 * rest folded into "… n unchanged lines"). `labels` says which side is which, e.g. the active version.
 */
export function diffView(before, after, labels) {
  const lines = diffLines(before, after);
  const changed = lines.map((l) => l.kind !== 'same');
  const near = lines.map((_, i) => changed.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some(Boolean));
  const items = [];
  let folded = 0;
  const fold = () => {
    if (folded) items.push(h('li', { class: 'fold' }, `… ${folded} unchanged line${folded === 1 ? '' : 's'}`));
    folded = 0;
  };
  lines.forEach((line, i) => {
    if (!near[i]) {
      folded++;
      return;
    }
    fold();
    if (line.kind === 'removed')
      items.push(
        h(
          'li',
          { class: 'removed' },
          h('del', {}, h('span', { class: 'visually-hidden' }, 'removed: '), `- ${line.text}`),
        ),
      );
    else if (line.kind === 'added')
      items.push(
        h('li', { class: 'added' }, h('ins', {}, h('span', { class: 'visually-hidden' }, 'added: '), `+ ${line.text}`)),
      );
    else items.push(h('li', { class: 'same' }, `  ${line.text}`));
  });
  fold();
  const count = (kind) => lines.filter((l) => l.kind === kind).length;
  const removed = count('removed');
  const added = count('added');
  return h(
    'div',
    { class: 'diff' },
    h(
      'p',
      { class: 'diff-legend' },
      removed || added
        ? [
            h('span', { class: 'removed' }, `- ${removed} line${removed === 1 ? '' : 's'} only in ${labels.before}`),
            ' ',
            h('span', { class: 'added' }, `+ ${added} line${added === 1 ? '' : 's'} only in ${labels.after}`),
          ]
        : `${labels.before} and ${labels.after} are the same.`,
    ),
    removed || added // A long diff scrolls in its own box; tabindex lets a keyboard user scroll it too.
      ? h(
          'ol',
          { class: 'diff-lines', tabindex: 0, 'aria-label': `Changes from ${labels.before} to ${labels.after}` },
          items,
        )
      : null,
  );
}
