import { z } from 'zod';
import { ConfigError } from '../config.js';

export const COMPANY_LOOKUPS = ['id', 'ln_slug', 'ln_url', 'fqdn', 'abn', 'website'] as const;
export const PERSON_LOOKUPS = ['id', 'ln_slug', 'ln_url', 'work_email', 'personal_email'] as const;
export type CompanyLookupBy = (typeof COMPANY_LOOKUPS)[number];
export type PersonLookupBy = (typeof PERSON_LOOKUPS)[number];

/** The query parameter each lookup kind is sent as. */
export interface LookupParamNames {
  company: Record<CompanyLookupBy, string>;
  person: Record<PersonLookupBy, string>;
}

export interface LookupParamOverrides {
  company?: Partial<Record<CompanyLookupBy, string>>;
  person?: Partial<Record<PersonLookupBy, string>>;
}

/**
 * The specification names only `ln_slug`; the other names are our best reading and may differ
 * for a given account, so each one can be overridden.
 */
export const DEFAULT_LOOKUP_PARAMS: LookupParamNames = {
  company: { id: 'id', ln_slug: 'ln_slug', ln_url: 'ln_url', fqdn: 'fqdn', abn: 'abn', website: 'website' },
  person: {
    id: 'id',
    ln_slug: 'ln_slug',
    ln_url: 'ln_url',
    work_email: 'work_email',
    personal_email: 'personal_email',
  },
};

const paramName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected a query parameter name (1-64 letters, digits, _ . -)');

const names = <K extends string>(kinds: readonly K[]) =>
  z.strictObject(
    Object.fromEntries(kinds.map((k) => [k, paramName.optional()])) as Record<K, z.ZodOptional<typeof paramName>>,
  );

export const LookupParamOverridesSchema = z.strictObject({
  company: names(COMPANY_LOOKUPS).optional(),
  person: names(PERSON_LOOKUPS).optional(),
});

export function resolveLookupParams(overrides: LookupParamOverrides = {}): LookupParamNames {
  return {
    company: { ...DEFAULT_LOOKUP_PARAMS.company, ...stripUndefined(overrides.company) },
    person: { ...DEFAULT_LOOKUP_PARAMS.person, ...stripUndefined(overrides.person) },
  };
}

/**
 * Reads PARTNER_LOOKUP_PARAMS, a JSON object such as `{"company":{"fqdn":"domain"}}`; unset means
 * the defaults. Throws ConfigError naming the variable and every wrong entry.
 */
export function parseLookupParams(json: string | undefined, variable = 'PARTNER_LOOKUP_PARAMS'): LookupParamNames {
  if (json === undefined || json.trim() === '') return resolveLookupParams();
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new ConfigError([
      {
        variable,
        message: `expected a JSON object such as {"company":{"fqdn":"domain"}} (${(error as Error).message})`,
      },
    ]);
  }
  const parsed = LookupParamOverridesSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable,
        message: `${issue.path.join('.') || '(top level)'}: ${describe(issue)}`,
      })),
    );
  }
  return resolveLookupParams(parsed.data);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const known =
      issue.path.length === 0 ? ['company', 'person'] : issue.path[0] === 'company' ? COMPANY_LOOKUPS : PERSON_LOOKUPS;
    return `unknown key ${issue.keys.join(', ')}; expected one of ${known.join(', ')}`;
  }
  return issue.message;
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
