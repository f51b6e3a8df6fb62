/**
 * Match keys from hostile CRM values: every check is linear in the value (or refuses it for its
 * length first), and nothing throws.
 */
import { describe, expect, it } from 'vitest';
import { resolveMatchValue } from '../../src/mapping/match-keys.js';

const timed = <T>(fn: () => T): { value: T; ms: number } => {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
};

describe('match keys from hostile values', () => {
  it('reads ordinary values as before', () => {
    expect(resolveMatchValue('work_email', ' Jane.Doe@Example.COM ')).toBe('jane.doe@example.com');
    expect(resolveMatchValue('work_email', 'jane@localhost')).toBeUndefined();
    expect(resolveMatchValue('work_email', 'jane@example..com')).toBeUndefined();
    expect(resolveMatchValue('ln_slug', 'https://www.linkedin.com/in/jane-doe///')).toBe('jane-doe');
    expect(resolveMatchValue('ln_slug', 'https://www.linkedin.com/in/j%C3%A9r%C3%B4me')).toBe('jérôme');
    expect(resolveMatchValue('ln_slug', '@jane')).toBe('jane');
  });

  // A guard against quadratic time (the old checks took 7.5 s on these), loose enough for a busy machine.
  it('answers in linear time, whatever the value', () => {
    const values = [
      `a@${'a.'.repeat(30_000)} `,
      `${'a'.repeat(60_000)}@${'b'.repeat(60_000)}`,
      `https://x.example/${'/'.repeat(100_000)}x`,
      `${'/'.repeat(100_000)}x`,
      `https://x.example/${'a/'.repeat(50_000)}`,
    ];
    for (const value of values) {
      for (const by of ['work_email', 'ln_slug', 'ln_url', 'fqdn', 'website', 'abn'] as const) {
        const { ms } = timed(() => resolveMatchValue(by, value));
        expect(ms, `${by} on a ${value.length}-character value`).toBeLessThan(1_000);
      }
    }
    expect(resolveMatchValue('work_email', `a@${'a.'.repeat(30_000)}com`)).toBeUndefined();
  });

  it('does not throw on a bad percent-escape', () => {
    expect(() => resolveMatchValue('ln_slug', 'https://www.linkedin.com/in/%E0%A4%A')).not.toThrow();
    expect(resolveMatchValue('ln_slug', 'https://www.linkedin.com/in/%E0%A4%A')).toBeUndefined();
  });
});
