/**
 * POST /__sandbox/job-changes: people move to another company of the dataset, deterministically, and
 * every lookup the project's partner client makes for them (by id, LinkedIn, old work e-mail, personal
 * e-mail) answers the new job from then on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenericErrorBody } from '../../../src/partner/schemas.js';
import type { PersonLookup } from '../../../src/partner/sandbox/dataset.js';
import { startPartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { partnerFixture, type PartnerFixture } from '../client/fixtures.js';
import { call } from './http.js';

interface Moved {
  moved: { personId: string; from: { companyId: string; domain: string }; to: { companyId: string; domain: string } }[];
}

const move = async (url: string, body: unknown) => call(url, '/__sandbox/job-changes', { key: null, body });

let fx: PartnerFixture;
beforeAll(async () => {
  fx = await partnerFixture({ companies: 60, people: 400 });
});
afterAll(() => fx.close());

describe('POST /__sandbox/job-changes', () => {
  it('moves the people named to another company, and every lookup answers the new job', async () => {
    const { client } = fx.client();
    const before = fx.sample.people.find((p) => p.personal_email) ?? fx.sample.people[0]!;
    const old = (await client.lookupPerson({ by: 'id', value: before.id! }))!;
    const answer = await move(fx.sandbox.url, { personIds: [before.id], seed: 3 });
    expect(answer.status).toBe(200);
    const [moved] = (answer.body as Moved).moved;
    expect(moved!.personId).toBe(before.id);
    expect(moved!.from.companyId).toBe(before.company_id);
    expect(moved!.from.domain).toBe(before.work_email!.split('@')[1]);
    expect(moved!.to.domain).not.toBe(moved!.from.domain);

    const keys: [PersonLookup, string | undefined][] = [
      ['id', before.id],
      ['ln_slug', before.ln_slug],
      ['ln_url', before.ln_url],
      ['work_email', before.work_email],
      ...(before.personal_email ? [['personal_email', before.personal_email] as [PersonLookup, string]] : []),
    ];
    expect(keys.some(([by]) => by === 'personal_email')).toBe(true);
    for (const [by, value] of keys) {
      const now = (await client.lookupPerson({ by, value: value! }))!;
      expect(now.id, by).toBe(before.id);
      expect(now.current_company?.id, by).toBe(moved!.to.companyId);
      expect(now.current_company?.website, by).toContain(moved!.to.domain);
      expect(
        now.emails?.work?.map((e) => e.value),
        by,
      ).toEqual([expect.stringMatching(new RegExp(`@${moved!.to.domain.replace(/\./g, '\\.')}$`))]);
      expect(now.emails?.personal, by).toEqual(old.emails?.personal);
      expect(now.time_in_current_role, by).toBe("Jun '25 - Present");
      expect([now.month_joined, now.year_joined], by).toEqual([6, 2025]);
      expect(now.headline, by).toContain(now.position);
    }
    const newWork = (await client.lookupPerson({ by: 'id', value: before.id! }))!.emails!.work![0]!.value!;
    expect((await client.lookupPerson({ by: 'work_email', value: newWork }))?.id).toBe(before.id);
    expect(fx.sandbox.dataset.peopleAt(moved!.to.companyId).map((p) => p.id)).toContain(before.id);
    expect(fx.sandbox.dataset.peopleAt(moved!.from.companyId).map((p) => p.id)).not.toContain(before.id);
  });

  it('moves a share of everyone, the same people to the same companies for the same seed', async () => {
    const [a, b] = await Promise.all([
      startPartnerSandbox({ companies: 40, people: 200, seed: 5 }),
      startPartnerSandbox({ companies: 40, people: 200, seed: 5 }),
    ]);
    try {
      const first = (await move(a.url, { share: 0.2, seed: 7 })).body as Moved;
      const second = (await move(b.url, { share: 0.2, seed: 7 })).body as Moved;
      expect(first.moved).toHaveLength(40);
      expect(new Set(first.moved.map((m) => m.personId)).size).toBe(40);
      expect(second).toEqual(first);
      const other = (await move(b.url, { share: 0.2, seed: 8 })).body as Moved;
      expect(other.moved.map((m) => m.personId)).not.toEqual(first.moved.map((m) => m.personId));
      // Those not moved still answer their generated job.
      const movedIds = new Set(first.moved.map((m) => m.personId));
      const stayed = a.dataset.personRecords.find((p) => !movedIds.has(p.id))!;
      expect(stayed.person.current_company?.id).toBe(stayed.employer.company.id);
      expect(stayed.person.month_joined).not.toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('moves a share of the people at start, as the CLI option asks', async () => {
    const started = await startPartnerSandbox({ companies: 40, people: 200, seed: 5, jobChangesShare: 0.2 });
    const reference = await startPartnerSandbox({ companies: 40, people: 200, seed: 5 });
    try {
      const expected = (await move(reference.url, { share: 0.2, seed: 5 })).body as Moved;
      for (const m of expected.moved) {
        expect(started.dataset.findPerson('id', m.personId)!.person.current_company?.id).toBe(m.to.companyId);
      }
    } finally {
      await Promise.all([started.close(), reference.close()]);
    }
  });

  it('refuses a malformed request naming the field, and unknown people with 404', async () => {
    for (const body of [{ share: 1.5 }, { personIds: [] }, { share: 0.1, extra: true }, 'not json']) {
      const answer = await move(fx.sandbox.url, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(GenericErrorBody.parse(answer.body).message).toMatch(/share|personIds|body|JSON/);
    }
    const share = await move(fx.sandbox.url, { share: 1.5 });
    expect(GenericErrorBody.parse(share.body).message).toMatch(/share/);
    const unknown = await move(fx.sandbox.url, { personIds: ['pe_9999999'] });
    expect(unknown.status).toBe(404);
    expect(GenericErrorBody.parse(unknown.body).message).toContain('pe_9999999');
  });
});
