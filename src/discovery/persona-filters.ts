/**
 * A persona: who to look for at a company, as people search filters. Seniority and department take
 * codes from the partner's filter catalogue; position takes free text (people search matches it as
 * "contains"). Codes are checked against the cached catalogue before any search is sent.
 */
import { AppError } from '../core/errors.js';
import { z } from 'zod';

export const PERSONA_FILTERS = ['seniority', 'department', 'position'] as const;

export const PersonaFilters = z
  .strictObject({
    seniority: z
      .array(z.string().trim().min(1, 'seniority: a code must not be empty'))
      .max(7, 'seniority: at most 7 codes')
      .optional(),
    department: z
      .array(z.string().trim().min(1, 'department: a code must not be empty'))
      .max(17, 'department: at most 17 codes')
      .optional(),
    position: z
      .array(
        z.string().trim().min(1, 'position: a title must not be empty').max(100, 'position: at most 100 characters'),
      )
      .max(10, 'position: at most 10 titles')
      .optional(),
  })
  .refine((f) => PERSONA_FILTERS.some((id) => (f[id]?.length ?? 0) > 0), {
    message: 'name at least one of seniority, department or position',
  });
export type PersonaFilters = z.infer<typeof PersonaFilters>;

export class FilterValueError extends AppError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('unknown_filter_value', message, 'permanent', { field });
  }
}

/** The allowed codes of the coded filters, as the catalogue lists them: filter id -> code -> label. */
export type CatalogueCodes = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** Throws FilterValueError naming the first code the catalogue does not know. */
export function checkCodes(filters: PersonaFilters, catalogue: CatalogueCodes): void {
  for (const id of ['seniority', 'department'] as const) {
    const allowed = catalogue.get(id);
    if (!allowed) throw new FilterValueError(`filters.${id}`, `the partner's filter catalogue has no ${id} filter`);
    for (const code of filters[id] ?? []) {
      if (!allowed.has(code)) {
        const known = [...allowed].map(([c, label]) => `${c} (${label})`).join(', ');
        throw new FilterValueError(
          `filters.${id}`,
          `filters.${id}: "${code}" is not a ${id} code; use one of ${known}`,
        );
      }
    }
  }
}

/**
 * Every single-valued search a persona fans out to: people search takes one seniority, one department, one position.
 */
export function searchCombinations(
  filters: PersonaFilters,
): { seniority?: string; department?: string; position?: string }[] {
  const axis = (values: string[] | undefined) => (values && values.length ? [...new Set(values)] : [undefined]);
  const out: { seniority?: string; department?: string; position?: string }[] = [];
  for (const seniority of axis(filters.seniority)) {
    for (const department of axis(filters.department)) {
      for (const position of axis(filters.position)) {
        out.push({
          ...(seniority ? { seniority } : {}),
          ...(department ? { department } : {}),
          ...(position ? { position } : {}),
        });
      }
    }
  }
  return out;
}

/** What a persona asks for, in words, for audit rows and tables. */
export function describeFilters(filters: PersonaFilters, catalogue?: CatalogueCodes): string {
  const label = (id: string, code: string) => catalogue?.get(id)?.get(code) ?? code;
  const parts = [
    filters.seniority?.length ? `seniority ${filters.seniority.map((c) => label('seniority', c)).join(' or ')}` : '',
    filters.department?.length
      ? `department ${filters.department.map((c) => label('department', c)).join(' or ')}`
      : '',
    filters.position?.length ? `position containing ${filters.position.map((p) => `"${p}"`).join(' or ')}` : '',
  ];
  return parts.filter(Boolean).join(', ');
}
