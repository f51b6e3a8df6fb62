/** The person at the new employer for the newContact action: a partner work e-mail at the new domain only. */
import { describe, expect, it } from 'vitest';
import { workEmailAt } from '../../../src/enrich/job-changes/work-email.js';

const person = (...work: string[]) => ({
  id: 'p-1',
  first_name: 'Ann',
  last_name: 'Lee',
  emails: { work: work.map((value) => ({ value })), personal: [{ value: 'ann@gmail.example' }] },
});

describe('workEmailAt', () => {
  it("takes the work address at the new employer's domain or a subdomain, lower case, with the names", () => {
    expect(workEmailAt(person('ann.lee@acme.example', 'Ann.Lee@Globex.example'), 'globex.example')).toEqual({
      email: 'ann.lee@globex.example',
      firstName: 'Ann',
      lastName: 'Lee',
    });
    expect(workEmailAt(person('ann@eu.globex.example'), 'globex.example')?.email).toBe('ann@eu.globex.example');
  });

  it('gives none for an address elsewhere, a look-alike domain, a personal address or no domain', () => {
    expect(workEmailAt(person('ann.lee@acme.example'), 'globex.example')).toBeNull();
    expect(workEmailAt(person('ann@notglobex.example'), 'globex.example')).toBeNull();
    expect(workEmailAt({ emails: { personal: [{ value: 'ann@globex.example' }] } }, 'globex.example')).toBeNull();
    expect(workEmailAt(person('ann@globex.example'), null)).toBeNull();
  });
});
