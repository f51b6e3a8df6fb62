/**
 * Generates the sandbox's people. Each works at a company of the dataset (current_company carries
 * that company's name, website and handle), has a seniority and department named as in the
 * specification, and a job title that fits both. Some have no e-mail and some phones are DND.
 *
 * What lookups and searches need is drawn up front; the full profile is drawn from the person's own
 * seeded stream the first time it is read, so a dataset of 20,000 people starts fast and stays small,
 * and a profile is the same whichever order profiles are read in.
 */
import { DEPARTMENTS, SENIORITIES, type Market, type Person } from '../schemas.js';
import type { CompanyRecord } from './company-generator.js';
import { MARKET_INFO, stateCode } from './geography.js';
import { Prng } from './prng.js';
import { DEGREES, DEPARTMENT_ROLES, FAMILY_NAMES, FIELDS_OF_STUDY, GIVEN_NAMES, MONTHS } from './words.js';

/** Data is "as of" this month, so the same seed gives the same tenure on any day. */
const AS_OF = { year: 2025, month: 6 } as const;

const SENIORITY_WEIGHTS = [3, 4, 6, 12, 25, 45, 5];
const WEIGHTED_SENIORITY = SENIORITY_WEIGHTS.flatMap((w, i) => Array<number>(w).fill(i + 1));
const WEIGHTED_DEPARTMENT = [1, 2, 2, 2, 3, 4, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15, 16, 17];
const DELIVERABILITY = [
  'deliverable',
  'deliverable',
  'deliverable',
  'deliverable',
  'deliverable',
  'deliverable',
  'deliverable',
  'risky',
  'risky',
  'undeliverable',
];

/** Personal addresses live where real ones do: at the free-mail providers people use in these markets. */
const FREE_MAIL = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'hotmail.com',
  'icloud.com',
  'bigpond.com',
  'yahoo.com.au',
  'naver.com',
  'qq.com',
  'yahoo.co.jp',
];

const emailParts = new Map<string, string>();
function emailPart(text: string): string {
  let part = emailParts.get(text);
  if (part === undefined) {
    part = text.toLowerCase().replace(/[^a-z]/g, '');
    emailParts.set(text, part);
  }
  return part;
}

function positionFor(prng: Prng, seniority: number, department: number): string {
  const role = DEPARTMENT_ROLES[department] ?? DEPARTMENT_ROLES[17]!;
  switch (seniority) {
    case 1:
      return prng.pick(['Non-Executive Director', 'Company Director', 'Board Member', 'Chair of the Board']);
    case 2:
      return prng.pick(['Founder', 'Co-Founder', 'Owner', 'Founder & CEO']);
    case 3:
      return department === 13 || department === 10 ? 'Partner' : role.chief;
    case 4:
      return prng.pick([`Head of ${role.area}`, `Director of ${role.area}`, `VP ${role.area}`]);
    case 5:
      return `${role.area} Manager`;
    default:
      return prng.pick(role.staff);
  }
}

function tenure(month: number, year: number): string {
  return `${MONTHS[month - 1]} '${String(year).slice(2)}`;
}

export class PersonRecord {
  readonly id: string;
  readonly market: Market;
  readonly seniorityId: number;
  readonly departmentId: number;
  /** Where the person works now: the generated job until a move (see `moveTo`) replaces it. */
  private job: { employer: CompanyRecord; position: string; monthsInRole: number; workEmail?: string };
  /** people_location codes of where the person is. */
  readonly locationCodes: string[];
  readonly slug: string;
  readonly skills: string[];
  /** Every work address the person ever had here, so a lookup by an old one still finds them. */
  readonly pastWorkEmails: string[] = [];
  private readonly generatedWorkEmail: boolean;
  readonly personalEmail?: string;
  readonly phones: { value: string; is_dnd: boolean }[];
  readonly mobile?: string;
  private readonly names: { first: string; last: string; middle?: string; gender: 'female' | 'male' };
  private readonly place: { state: string; city: string };

  constructor(
    prng: Prng,
    private readonly seed: number,
    private readonly index: number,
    employer: CompanyRecord,
    private readonly others: readonly CompanyRecord[],
    usedWorkEmails: Set<string>,
  ) {
    this.market = prng.chance(0.8) ? employer.home : prng.pick([...employer.regions.keys()]);
    const info = MARKET_INFO[this.market];
    const pool = prng.pick(info.names);
    const gender = prng.chance(0.5) ? 'female' : 'male';
    const first = prng.pick(GIVEN_NAMES[pool][gender]);
    const last = prng.pick(FAMILY_NAMES[pool]);
    this.names = {
      first,
      last,
      gender,
      middle: pool === 'anglo' && prng.chance(0.3) ? prng.pick(GIVEN_NAMES.anglo[gender]) : undefined,
    };
    this.id = `pe_${String(index + 1).padStart(7, '0')}`;
    this.seniorityId = prng.pick(WEIGHTED_SENIORITY);
    this.departmentId = prng.pick(WEIGHTED_DEPARTMENT);
    const position = positionFor(prng, this.seniorityId, this.departmentId);
    const monthsInRole = prng.chance(0.15) ? prng.int(0, 6) : prng.int(7, 180);
    this.slug = `${emailPart(first)}-${emailPart(last)}-${index.toString(36)}`;
    const [, state, city] = prng.pick(info.states);
    this.place = { state, city };
    this.locationCodes = [stateCode(this.market, state)];
    const role = DEPARTMENT_ROLES[this.departmentId] ?? DEPARTMENT_ROLES[17]!;
    this.skills = prng.sample(role.skills, prng.int(2, role.skills.length));

    const emailRoll = prng.next();
    let workEmail: string | undefined;
    if (emailRoll < 0.8) {
      workEmail = this.workAddress(employer, (address) => usedWorkEmails.has(address));
      usedWorkEmails.add(workEmail);
    }
    this.job = { employer, position, monthsInRole, workEmail };
    this.generatedWorkEmail = workEmail !== undefined;
    if (emailRoll > 0.1 && prng.chance(0.45))
      this.personalEmail = `${emailPart(first)}${emailPart(last)}${index}@${FREE_MAIL[index % FREE_MAIL.length]}`;
    this.mobile = prng.chance(0.6) ? `${info.dial} 4${prng.digits(2)} ${prng.digits(3)} ${prng.digits(3)}` : undefined;
    this.phones = [
      ...(this.mobile ? [{ value: this.mobile, is_dnd: prng.chance(0.2) }] : []),
      ...(prng.chance(0.3)
        ? [{ value: `${info.dial} ${prng.digits(1)} ${prng.digits(4)} ${prng.digits(4)}`, is_dnd: prng.chance(0.1) }]
        : []),
    ];
  }

  get employer(): CompanyRecord {
    return this.job.employer;
  }

  get position(): string {
    return this.job.position;
  }

  get monthsInRole(): number {
    return this.job.monthsInRole;
  }

  get workEmail(): string | undefined {
    return this.job.workEmail;
  }

  /**
   * The person changes jobs: from now on the profile names the new employer, a position drawn for the
   * same seniority and department, a start in the data's current month and a work address at the new
   * domain (`taken` says which addresses belong to someone else). The old work address is kept in
   * `pastWorkEmails`; the personal address stays. Returns the new work address.
   */
  moveTo(employer: CompanyRecord, taken: (address: string) => boolean): string {
    const prng = new Prng(
      Math.imul(this.seed + 7, 0x27d4eb2d) ^ Math.imul(this.index + this.pastWorkEmails.length + 2, 0x165667b1),
    );
    if (this.job.workEmail) this.pastWorkEmails.push(this.job.workEmail);
    const workEmail = this.workAddress(employer, taken);
    this.job = {
      employer,
      position: positionFor(prng, this.seniorityId, this.departmentId),
      monthsInRole: 0,
      workEmail,
    };
    if (this.changes) {
      // What the partner had changed about the old job says nothing of the new one.
      const {
        position: _p,
        headline: _h,
        description: _d,
        current_company: _c,
        emails: _e,
        time_in_current_role: _t,
        month_joined: _m,
        year_joined: _y,
        ...rest
      } = this.changes;
      this.changes = rest;
    }
    return workEmail;
  }

  private workAddress(employer: CompanyRecord, taken: (address: string) => boolean): string {
    const { first, last } = this.names;
    const plain = `${emailPart(first)}.${emailPart(last)}@${employer.domain}`;
    return taken(plain) ? `${emailPart(first)}.${emailPart(last)}${this.index}@${employer.domain}` : plain;
  }

  /** Fields of the profile the partner has changed since it was generated (see `change`). */
  private changes?: Partial<Person>;

  /**
   * The full profile, as GET /people returns it. Drawn again on each call from the person's own seed
   * (the same every time), not kept: an import that looks up thousands of people would otherwise hold
   * every profile for the life of the sandbox, in the service's own process in the embedded default.
   */
  get person(): Person {
    const drawn = this.draw();
    return this.changes ? { ...drawn, ...this.changes } : drawn;
  }

  /** The partner's data moves on: these fields of the profile read differently from now on. */
  change(fields: Partial<Person>): void {
    this.changes = { ...this.changes, ...fields };
  }

  private draw(): Person {
    const prng = new Prng(Math.imul(this.seed + 1, 0x9e3779b1) ^ Math.imul(this.index + 1, 0x85ebca6b));
    const { first, last, middle, gender } = this.names;
    const { state, city } = this.place;
    const info = MARKET_INFO[this.market];
    const role = DEPARTMENT_ROLES[this.departmentId] ?? DEPARTMENT_ROLES[17]!;
    const company = this.employer.company;
    const shortName = this.employer.shortName;
    const start = AS_OF.year * 12 + (AS_OF.month - 1) - this.monthsInRole;
    const yearJoined = Math.floor(start / 12);
    const monthJoined = (start % 12) + 1;
    const graduated = Math.min(AS_OF.year - 1, yearJoined - prng.int(0, 12));
    const schoolCity = prng.pick(info.states)[2];
    const previous = prng.chance(0.35) ? prng.pick(this.others) : undefined;
    const handle = (followersMax: number) => ({ handle: this.slug, followers: prng.int(10, followersMax) });

    return {
      id: this.id,
      name: [first, middle, last].filter(Boolean).join(' '),
      first_name: first,
      last_name: last,
      ...(middle ? { middle_name: middle } : {}),
      headline: `${this.position} at ${shortName}`,
      description:
        `${first} is ${/^[AEIOU]/.test(this.position) ? 'an' : 'a'} ${this.position} at ` +
        `${shortName} in ${city}, working in ${role.area.toLowerCase()}.`,
      position: this.position,
      current_company: {
        id: company.id,
        name: company.name,
        size: company.company_size,
        website: company.website,
        linkedin: company.linkedin,
        industry: company.industries,
        main_phones: company.phones,
        other_phones: [],
        mobile_phones: this.mobile ? [this.mobile] : [],
      },
      time_in_current_role: `${tenure(monthJoined, yearJoined)} - Present`,
      month_joined: monthJoined,
      year_joined: yearJoined,
      emails: {
        personal: this.personalEmail ? [{ value: this.personalEmail, deliverability: prng.pick(DELIVERABILITY) }] : [],
        // Drawn only for those generated with a work address, so a move leaves the rest of the profile as it was.
        work: this.workEmail
          ? [
              {
                value: this.workEmail,
                deliverability: this.generatedWorkEmail ? prng.pick(DELIVERABILITY) : 'deliverable',
              },
            ]
          : [],
      },
      phones: this.phones.map((p) => ({ ...p })),
      linkedin: `https://www.linkedin.com/in/${this.slug}`,
      social_media: {
        linkedin: {
          handle: this.slug,
          connections: prng.chance(0.4) ? '500+' : String(prng.int(20, 499)),
          followers: prng.int(20, 5000),
        },
        ...(this.departmentId === 5
          ? { github: { handle: this.slug.replace(/-/g, ''), followers: prng.int(0, 900), stars: prng.int(0, 3000) } }
          : {}),
        ...(prng.chance(0.3)
          ? { twitter: { handle: `${emailPart(first)}_${emailPart(last)}`, followers: prng.int(10, 20000) } }
          : {}),
        ...(prng.chance(0.2) ? { facebook: handle(3000) } : {}),
        ...(prng.chance(0.05) ? { youtube: handle(50000) } : {}),
        ...(prng.chance(0.05) ? { pintrest: handle(5000) } : {}),
      },
      location: [`${city}, ${state}, ${info.label}`],
      department: DEPARTMENTS[this.departmentId as keyof typeof DEPARTMENTS],
      seniority: SENIORITIES[this.seniorityId as keyof typeof SENIORITIES],
      gender,
      skills: [...this.skills],
      education: {
        field: prng.pick(FIELDS_OF_STUDY),
        degree: prng.pick(DEGREES),
        date_range: `${graduated - prng.int(2, 4)} - ${graduated}`,
        school_name: prng.pick([
          `University of ${schoolCity}`,
          `${schoolCity} Institute of Technology`,
          `${schoolCity} Business School`,
        ]),
      },
      keywords: [role.area.toLowerCase(), ...(company.industries ?? []).map((i) => i.toLowerCase())],
      secondary_position: previous
        ? [
            {
              company_id: previous.company.id,
              company_name: previous.company.name,
              company_size: previous.company.company_size,
              company_website: previous.company.website,
              company_linkedin: previous.company.linkedin,
              company_industry: previous.company.industries?.[0],
              cleaned_position: prng.pick(['Advisor', 'Board Member', 'Mentor', 'Volunteer']),
              time_in_current_role: `${tenure(monthJoined, yearJoined)} - Present`,
              seniority: SENIORITIES[6],
              department: DEPARTMENTS[16],
              month_joined: monthJoined,
              year_joined: String(yearJoined),
            },
          ]
        : [],
    };
  }
}
