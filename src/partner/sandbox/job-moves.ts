/**
 * POST /__sandbox/job-changes: people of the dataset change jobs, so job-change detection has real
 * moves to find. Either a share of everyone, chosen by a seed, or the people named; each goes to
 * another company of the dataset (one with a different domain), chosen by the seed, so the same
 * request on the same dataset moves the same people to the same companies.
 */
import { z } from 'zod';
import type { CompanyRecord, PartnerDataset, PersonRecord } from './dataset.js';
import { SandboxHttpError } from './http-error.js';
import { Prng } from './prng.js';

const MoveRequest = z.union([
  z.strictObject({
    share: z.number().min(0).max(1),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
  }),
  z.strictObject({
    personIds: z.array(z.string().min(1)).min(1).max(100_000),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
  }),
]);
export type MoveRequest = z.infer<typeof MoveRequest>;

export interface CompanyRef {
  companyId: string;
  domain: string;
}

export interface Move {
  personId: string;
  from: CompanyRef;
  to: CompanyRef;
}

const ref = (record: CompanyRecord): CompanyRef => ({ companyId: record.company.id ?? '', domain: record.domain });

function parse(body: unknown): MoveRequest {
  const parsed = MoveRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  throw SandboxHttpError.generic(
    400,
    'give {"share": <0..1>, "seed": <whole number>} or {"personIds": ["pe_..."], "seed": <whole number>}; ' +
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '),
  );
}

function chosen(dataset: PartnerDataset, request: MoveRequest, prng: Prng): PersonRecord[] {
  if ('share' in request) {
    return prng.sample(dataset.personRecords, Math.round(request.share * dataset.personRecords.length));
  }
  const unknown = request.personIds.filter((id) => !dataset.findPerson('id', id));
  if (unknown.length > 0) {
    throw SandboxHttpError.generic(404, `no person has the id ${unknown.slice(0, 5).join(', ')}`);
  }
  const ids = new Set(request.personIds);
  return [...ids].map((id) => dataset.findPerson('id', id)!);
}

/** Moves the people the request selects and says who went where, in the order they moved. */
export function moveJobs(dataset: PartnerDataset, body: unknown): { moved: Move[] } {
  const request = parse(body);
  if (dataset.companyRecords.length < 2) {
    throw SandboxHttpError.generic(409, 'the dataset has fewer than two companies; nobody has anywhere to move to');
  }
  const prng = new Prng(request.seed ?? dataset.seed);
  const moved: Move[] = [];
  for (const person of chosen(dataset, request, prng)) {
    const from = person.employer;
    let to = prng.pick(dataset.companyRecords);
    while (to.domain === from.domain) to = prng.pick(dataset.companyRecords);
    dataset.movePerson(person, to);
    moved.push({ personId: person.id, from: ref(from), to: ref(to) });
  }
  return { moved };
}
