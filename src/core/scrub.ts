/**
 * Takes personal values and secrets out of free text (an error message a CRM or the partner sent,
 * which may quote the value it refused), keeping what an admin needs to act: field names, codes,
 * the sentence around them. Linear in the text, which is cut to a bounded length first.
 */
const MAX_TEXT = 2_000;

/** What may not be part of an e-mail address as error text quotes one: spaces, quotes, brackets, path separators. */
const NOT_IN_ADDRESS = `\\s@"'<>()\\[\\],;:/\\\\`;

const PATTERNS: [RegExp, string][] = [
  // e-mail addresses: a domain with a dot and a last label that is not a number, so that a path in a stack
  // trace (node_modules/@scope/pkg, .pnpm/pkg@1.2.3/) is not one
  [
    new RegExp(
      `[^${NOT_IN_ADDRESS}]{1,64}@` +
        `(?:[^${NOT_IN_ADDRESS}.]{1,63}\\.){1,8}[^${NOT_IN_ADDRESS}.\\d][^${NOT_IN_ADDRESS}.]{0,62}`,
      'g',
    ),
    '<email>',
  ],
  // bearer tokens and keys in headers quoted back
  [/\b(Bearer|Basic)\s+[\w.~+/-]+=*/gi, '$1 <secret>'],
  // nine digits or more, single separators allowed: phone and account numbers (not dates or counts). Not
  // digits inside a word or a path: a Salesforce id (00D8d0000000001EAA) or a directory named by a time
  // (/tmp/run-1732800000000/) is not a personal value.
  [/(?<![\w/\\.-])\+?\d(?:[ ()-]?\d){8,}(?![\w/\\])/g, '<number>'],
  // the value of a "value" field in JSON quoted back
  [/("value"\s*:\s*)"(?:[^"\\]|\\.){0,500}"/g, '$1"<value>"'],
];

export function scrubValues(text: string): string {
  let out = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
