/**
 * Takes personal values and secrets out of free text (an error message a CRM or the partner sent,
 * which may quote the value it refused), keeping what an admin needs to act: field names, codes,
 * the sentence around them. Linear in the text, which is cut to a bounded length first.
 */
const MAX_TEXT = 2_000;

const PATTERNS: [RegExp, string][] = [
  // e-mail addresses
  [/[^\s@"'<>(),;:]{1,64}@[^\s@"'<>(),;:]{1,255}/g, '<email>'],
  // bearer tokens and keys in headers quoted back
  [/\b(Bearer|Basic)\s+[\w.~+/-]+=*/gi, '$1 <secret>'],
  // nine digits or more, single separators allowed: phone and account numbers (not dates or counts)
  [/\+?\d(?:[ ()-]?\d){8,}/g, '<number>'],
  // the value of a "value" field in JSON quoted back
  [/("value"\s*:\s*)"(?:[^"\\]|\\.){0,500}"/g, '$1"<value>"'],
];

export function scrubValues(text: string): string {
  let out = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
