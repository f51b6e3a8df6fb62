// A line diff of two mapping documents (a changed line reads as its old text, then its new one), computed in the browser (the page has no build step and no
// libraries): longest common subsequence over the lines, after trimming what both share at either end.
// Mapping documents are a few hundred lines, so the quadratic table stays small.
import { h } from './core.js';

/** The lines of `before` and `after` as `{ kind: 'same' | 'removed' | 'added', text }`, in reading order. */
export function diffLines(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  // lcs[i][j]: length of the longest common subsequence of x[i..] and y[j..].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out = a.slice(0, start).map((text) => ({ kind: 'same', text }));
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push({ kind: 'same', text: x[i] });
      i++;
      j++;
    } else if (i < x.length && (j === y.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push({ kind: 'removed', text: x[i++] });
    else out.push({ kind: 'added', text: y[j++] });
  }
  return out.concat(a.slice(endA).map((text) => ({ kind: 'same', text })));
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
    if (line.kind === 'removed') items.push(h('li', { class: 'removed' }, h('del', {}, h('span', { class: 'visually-hidden' }, 'removed: '), `- ${line.text}`)));
    else if (line.kind === 'added') items.push(h('li', { class: 'added' }, h('ins', {}, h('span', { class: 'visually-hidden' }, 'added: '), `+ ${line.text}`)));
    else items.push(h('li', { class: 'same' }, `  ${line.text}`));
  });
  fold();
  const count = (kind) => lines.filter((l) => l.kind === kind).length;
  const removed = count('removed');
  const added = count('added');
  return h('div', { class: 'diff' },
    h('p', { class: 'diff-legend' }, removed || added
      ? [h('span', { class: 'removed' }, `- ${removed} line${removed === 1 ? '' : 's'} only in ${labels.before}`), ' ', h('span', { class: 'added' }, `+ ${added} line${added === 1 ? '' : 's'} only in ${labels.after}`)]
      : `${labels.before} and ${labels.after} are the same.`),
    removed || added ? // A long diff scrolls in its own box; tabindex lets a keyboard user scroll it too.
    h('ol', { class: 'diff-lines', tabindex: 0, 'aria-label': `Changes from ${labels.before} to ${labels.after}` }, items) : null);
}
