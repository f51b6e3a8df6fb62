/** Transforms of one text value. */
import { domainOf } from '../../core/domain.js';
import { z } from 'zod';
import { MARKETS } from '../../partner/schemas.js';
import { toMarket } from '../markets.js';
import { defineTransform, describeKind } from './transform.js';
import type { ValueKind } from '../source-paths.js';

const noArgs = z.strictObject({});

function textInput(name: string, input: ValueKind): string | undefined {
  if (input.list) return `${name} takes one value; add first or join before it (it gets ${describeKind(input)})`;
  if (input.base !== 'string' && input.base !== 'any')
    return `${name} takes a text value, but gets ${describeKind(input)}`;
  return undefined;
}

const caseChange = (name: string, change: (s: string) => string) =>
  defineTransform({
    name,
    summary: `the text in ${name === 'lowercase' ? 'lower' : 'upper'} case`,
    args: noArgs,
    infer: (input) =>
      textInput(name, input) ?? { ...input, ...(input.domain ? { domain: input.domain.map(change) } : {}) },
    run: (value) => (typeof value === 'string' ? change(value) : value),
  });

export const lowercase = caseChange('lowercase', (s) => s.toLowerCase());
export const uppercase = caseChange('uppercase', (s) => s.toUpperCase());

export const trim = defineTransform({
  name: 'trim',
  summary: 'the text without surrounding spaces',
  args: noArgs,
  infer: (input) => textInput('trim', input) ?? input,
  run: (value) => (typeof value === 'string' ? value.trim() : value),
});

export const truncate = defineTransform({
  name: 'truncate',
  summary: 'the text cut to at most `max` characters',
  args: z.strictObject({ max: z.number().int().positive() }),
  infer: (input) => textInput('truncate', input) ?? { base: 'string', list: false },
  run: (value, args) => (typeof value === 'string' && value.length > args.max ? value.slice(0, args.max) : value),
});

/** Host of a URL or bare domain, lower case, without a leading `www.`. */
export const domainFromUrl = defineTransform({
  name: 'domain_from_url',
  summary: 'the domain of a website address (https://www.acme.com/about -> acme.com)',
  args: noArgs,
  infer: (input) => textInput('domain_from_url', input) ?? { base: 'string', list: false },
  run: (value) => (typeof value === 'string' ? domainOf(value) : undefined),
});

export const urlFromHandle = defineTransform({
  name: 'url_from_handle',
  summary: 'a full profile address from a handle: `prefix` + handle; full addresses pass unchanged',
  args: z.strictObject({ prefix: z.string().url() }),
  infer: (input) => textInput('url_from_handle', input) ?? { base: 'string', list: false },
  run(value, args) {
    if (typeof value !== 'string' || value.trim() === '') return undefined;
    const text = value.trim();
    if (/^https?:\/\//i.test(text)) return text;
    return args.prefix + text.replace(/^[@/]+/, '');
  },
});

export const market = defineTransform({
  name: 'market',
  summary: 'the partner market code (AU, NZ, ... CA) of a country name or code; other countries give no value',
  args: noArgs,
  infer: (input) => textInput('market', input) ?? { base: 'string', list: false, domain: MARKETS },
  run: (value) => (typeof value === 'string' ? toMarket(value) : undefined),
});
