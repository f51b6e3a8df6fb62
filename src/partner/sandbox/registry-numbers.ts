/**
 * Business registry numbers with valid check digits, so a caller that validates them (as a CRM
 * form might) accepts the sandbox's values: ACN and ABN (Australia), NZBN (New Zealand), UEN (Singapore).
 */
import type { Prng } from './prng.js';

/** A nine-digit ACN whose last digit is the ASIC check digit. */
export function makeAcn(prng: Prng): string {
  const body = prng.digits(8);
  const sum = [...body].reduce((acc, d, i) => acc + Number(d) * (8 - i), 0);
  return body + String((10 - (sum % 10)) % 10);
}

/** The ABN of a company: two check digits (modulus 89) in front of its ACN. */
export function abnFromAcn(acn: string): string {
  const weights = [3, 5, 7, 9, 11, 13, 15, 17, 19];
  const sum = [...acn].reduce((acc, d, i) => acc + Number(d) * (weights[i] ?? 0), 0);
  const prefix = ((89 - (sum % 89)) % 89) + 10;
  return String(prefix) + acn;
}

export function isValidAbn(abn: string): boolean {
  if (!/^\d{11}$/.test(abn)) return false;
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const sum = [...abn].reduce((acc, d, i) => acc + (Number(d) - (i === 0 ? 1 : 0)) * (weights[i] ?? 0), 0);
  return sum % 89 === 0;
}

/** A thirteen-digit NZBN (a GS1 number under New Zealand's 94 prefix) with its check digit. */
export function makeNzbn(prng: Prng): string {
  const body = '9429' + prng.digits(8);
  const sum = [...body].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return body + String((10 - (sum % 10)) % 10);
}

/** A company UEN of the form yyyynnnnnX: registration year, five digits, a check letter. */
export function makeUen(prng: Prng, year: number): string {
  return `${Math.max(year, 1990)}${prng.digits(5)}${prng.pick('ABCDEGHKMNRWZ'.split(''))}`;
}
