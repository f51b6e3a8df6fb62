/**
 * Generates the sandbox's people. Each works at a company of the dataset (current_company carries
 * that company's name, website and handle), has a seniority and department named as in the
 * specification, and a job title that fits both. Some have no e-mail and some phones are DND.
 */
import { DEPARTMENTS, SENIORITIES, type Market, type Person } from '../schemas.js';
import type { CompanyRecord } from './company-generator.js';
import { MARKET_INFO, stateCode } from './geography.js';
import type { Prng } from './prng.js';
import { DEGREES, DEPARTMENT_ROLES, FAMILY_NAMES, FIELDS_OF_STUDY, GIVEN_NAMES, MONTHS } from './words.js';

export interface PersonRecord {
  person: Person;
  employer: CompanyRecord;
  market: Market;
  seniorityId: number;
  departmentId: number;
  monthsInRole: number;
  /** people_location codes of where the person is. */
  locationCodes: string[];
}

/** Data is "as of" this month, so the same seed gives the same tenure on any day. */
export const AS_OF = { year: 2025, month: 6 } as const;

const SENIORITY_WEIGHTS = [3, 4, 6, 12, 25, 45, 5];
const WEIGHTED_SENIORITY = SENIORITY_WEIGHTS.flatMap((w, i) => Array<number>(w).fill(i + 1));
const WEIGHTED_DEPARTMENT = [1, 2, 2, 2, 3, 4, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15, 16, 17];
const DELIVERABILITY = ['deliverable', 'deliverable', 'deliverable', 'deliverable', 'deliverable', 'deliverable', 'deliverable',
  'risky', 'risky', 'undeliverable'];

function emailPart(text: string): string {
  return text.toLowerCase().replace(/[^a-z]/g, '');
}

function positionFor(prng: Prng, seniority: number, department: number): string {
  const role = DEPARTMENT_ROLES[department] ?? DEPARTMENT_ROLES[17]!;
  switch (seniority) {
    case 1: return prng.pick(['Non-Executive Director', 'Company Director', 'Board Member', 'Chair of the Board']);
    case 2: return prng.pick(['Founder', 'Co-Founder', 'Owner', 'Founder & CEO']);
    case 3: return department === 13 || department === 10 ? 'Partner' : role.chief;
    case 4: return prng.pick([`Head of ${role.area}`, `Director of ${role.area}`, `VP ${role.area}`]);
    case 5: return `${role.area} Manager`;
    default: return prng.pick(role.staff);
  }
}

function tenure(month: number, year: number): string {
  return `${MONTHS[month - 1]} '${String(year).slice(2)}`;
}

export function generatePerson(prng: Prng, index: number, employer: CompanyRecord, others: readonly CompanyRecord[],
  usedWorkEmails: Set<string>): PersonRecord {
  const markets = [...employer.regions.keys()];
  const market = prng.chance(0.8) ? employer.home : prng.pick(markets);
  const info = MARKET_INFO[market];
  const pool = prng.pick(info.names);
  const gender = prng.chance(0.5) ? 'female' : 'male';
  const first = prng.pick(GIVEN_NAMES[pool][gender]);
  const last = prng.pick(FAMILY_NAMES[pool]);
  const middle = pool === 'anglo' && prng.chance(0.3) ? prng.pick(GIVEN_NAMES.anglo[gender]) : undefined;
  const seniorityId = prng.pick(WEIGHTED_SENIORITY);
  const departmentId = prng.pick(WEIGHTED_DEPARTMENT);
  const position = positionFor(prng, seniorityId, departmentId);
  const role = DEPARTMENT_ROLES[departmentId] ?? DEPARTMENT_ROLES[17]!;
  const company = employer.company;
  const shortName = company.name?.replace(/ (Pty Ltd|Ltd|Limited|Pte Ltd|Sdn Bhd|Berhad|Tbk|Indonesia|Inc\.|Corporation|K\.K\.|Co\., Ltd\.?|JSC|Corp\.|LLC|Public Company Limited|Ltd\.)$/, '') ?? '';

  const monthsInRole = prng.chance(0.15) ? prng.int(0, 6) : prng.int(7, 180);
  const start = AS_OF.year * 12 + (AS_OF.month - 1) - monthsInRole;
  const yearJoined = Math.floor(start / 12);
  const monthJoined = (start % 12) + 1;
  const slug = `${emailPart(first)}-${emailPart(last)}-${index.toString(36)}`;
  const [, stateName, city] = prng.pick(info.states);

  let workEmail = `${emailPart(first)}.${emailPart(last)}@${employer.domain}`;
  if (usedWorkEmails.has(workEmail)) workEmail = `${emailPart(first)}.${emailPart(last)}${index}@${employer.domain}`;
  const emailRoll = prng.next();
  const hasWork = emailRoll < 0.8;
  const hasPersonal = emailRoll > 0.1 && prng.chance(0.45);
  if (hasWork) usedWorkEmails.add(workEmail);
  const mobile = prng.chance(0.6) ? `${info.dial} 4${prng.digits(2)} ${prng.digits(3)} ${prng.digits(3)}` : undefined;
  const phones = [
    ...(mobile ? [{ value: mobile, is_dnd: prng.chance(0.2) }] : []),
    ...(prng.chance(0.3) ? [{ value: `${info.dial} ${prng.digits(1)} ${prng.digits(4)} ${prng.digits(4)}`, is_dnd: prng.chance(0.1) }] : []),
  ];
  const schoolCity = prng.pick(info.states)[2];
  const graduated = Math.min(AS_OF.year - 1, yearJoined - prng.int(0, 12));
  const previous = prng.chance(0.35) ? prng.pick(others) : undefined;

  const person: Person = {
    id: `pe_${String(index + 1).padStart(7, '0')}`,
    name: [first, middle, last].filter(Boolean).join(' '),
    first_name: first,
    last_name: last,
    ...(middle ? { middle_name: middle } : {}),
    headline: `${position} at ${shortName}`,
    description: `${first} is ${/^[AEIOU]/.test(position) ? 'an' : 'a'} ${position} at ${shortName} in ${city}, working in ${role.area.toLowerCase()}.`,
    position,
    current_company: {
      id: company.id, name: company.name, size: company.company_size, website: company.website, linkedin: company.linkedin,
      industry: company.industries, main_phones: company.phones, other_phones: [], mobile_phones: mobile ? [mobile] : [],
    },
    time_in_current_role: `${tenure(monthJoined, yearJoined)} - Present`,
    month_joined: monthJoined,
    year_joined: yearJoined,
    emails: {
      personal: hasPersonal ? [{ value: `${emailPart(first)}${emailPart(last)}${index}@mail.example`, deliverability: prng.pick(DELIVERABILITY) }] : [],
      work: hasWork ? [{ value: workEmail, deliverability: prng.pick(DELIVERABILITY) }] : [],
    },
    phones,
    linkedin: `https://www.linkedin.com/in/${slug}`,
    social_media: {
      linkedin: { handle: slug, connections: prng.chance(0.4) ? '500+' : String(prng.int(20, 499)), followers: prng.int(20, 5000) },
      ...(departmentId === 5 ? { github: { handle: slug.replace(/-/g, ''), followers: prng.int(0, 900), stars: prng.int(0, 3000) } } : {}),
      ...(prng.chance(0.3) ? { twitter: { handle: `${emailPart(first)}_${emailPart(last)}`, followers: prng.int(10, 20000) } } : {}),
      ...(prng.chance(0.2) ? { facebook: { handle: slug, followers: prng.int(10, 3000) } } : {}),
      ...(prng.chance(0.05) ? { youtube: { handle: slug, followers: prng.int(10, 50000) } } : {}),
      ...(prng.chance(0.05) ? { pintrest: { handle: slug, followers: prng.int(10, 5000) } } : {}),
    },
    location: [`${city}, ${stateName}, ${info.label}`],
    department: DEPARTMENTS[departmentId as keyof typeof DEPARTMENTS],
    seniority: SENIORITIES[seniorityId as keyof typeof SENIORITIES],
    gender,
    skills: prng.sample(role.skills, prng.int(2, role.skills.length)),
    education: {
      field: prng.pick(FIELDS_OF_STUDY),
      degree: prng.pick(DEGREES),
      date_range: `${graduated - prng.int(2, 4)} - ${graduated}`,
      school_name: prng.pick([`University of ${schoolCity}`, `${schoolCity} Institute of Technology`, `${schoolCity} Business School`]),
    },
    keywords: [role.area.toLowerCase(), ...(employer.company.industries ?? []).map((i) => i.toLowerCase())],
    secondary_position: previous
      ? [{
          company_id: previous.company.id, company_name: previous.company.name, company_size: previous.company.company_size,
          company_website: previous.company.website, company_linkedin: previous.company.linkedin,
          company_industry: previous.company.industries?.[0], cleaned_position: prng.pick(['Advisor', 'Board Member', 'Mentor', 'Volunteer']),
          time_in_current_role: `${tenure(monthJoined, yearJoined)} - Present`, seniority: SENIORITIES[6], department: DEPARTMENTS[16],
          month_joined: monthJoined, year_joined: String(yearJoined),
        }]
      : [],
  };
  return { person, employer, market, seniorityId, departmentId, monthsInRole, locationCodes: [stateCode(market, stateName)] };
}
