/**
 * Salesforce record ids: 15 case-sensitive characters, or 18 with a 3-character suffix that encodes
 * the case of the first 15 so case-insensitive systems can tell ids apart. Both forms name the same record.
 */
const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const ID_SHAPE = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;

export function idSuffix(id15: string): string {
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15.charCodeAt(chunk * 5 + i);
      if (c >= 65 && c <= 90) bits |= 1 << i;
    }
    suffix += SUFFIX_ALPHABET[bits];
  }
  return suffix;
}

/** The 18-character form of a well-formed id, or undefined when `id` is not a Salesforce id. */
export function toId18(id: string): string | undefined {
  if (!ID_SHAPE.test(id)) return undefined;
  const id15 = id.slice(0, 15);
  const full = id15 + idSuffix(id15);
  if (id.length === 18 && id.toUpperCase() !== full.toUpperCase()) return undefined;
  return full;
}
