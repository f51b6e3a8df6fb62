/**
 * The CRM side of discovery: the company to look at (its partner id and market, read from the record
 * enrichment filled in), the person object and mapping new people are written through, and which
 * candidates the CRM already holds, found by partner id and profile handle before any credit is spent.
 */
import { domainOf } from '../core/domain.js';
import { AppError } from '../core/errors.js';
import type { CallOptions, CrmConnector, CrmRecord } from '../core/connector.js';
import type { CompiledMapping } from '../mapping/index.js';
import { missingDiscoveryProperties } from '../mapping/index.js';
import type { Market } from '../partner/schemas.js';
import { connectorFor } from '../core/connector-lookup.js';

export class DiscoveryError extends AppError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly field?: string,
  ) {
    super(code, message, 'permanent', field ? { field } : undefined);
  }
}

export interface MappingSource {
  list(): { compiled: CompiledMapping; version: { crm: string; objectType: string } }[];
}

export interface DiscoveryTarget {
  connector: CrmConnector;
  company: { id: string; name: string | null; partnerId: string; market: Market };
  companyObject: string;
  person: { objectType: string; mapping: CompiledMapping; linkProperty: string };
}

const NAME_PROPERTY: Record<string, string> = { hubspot: 'name', salesforce: 'Name' };

/** The person and company mappings of one CRM that discovery works through. */
export function discoveryMappings(
  mappings: MappingSource,
  connector: CrmConnector,
): { company?: CompiledMapping; person?: { objectType: string; mapping: CompiledMapping; linkProperty: string } } {
  const active = mappings.list().filter((m) => m.version.crm === connector.crm);
  const company = active.find((m) => m.compiled.source === 'company')?.compiled;
  const links = connector.companyLinkProperties ?? {};
  const person = active.find((m) => m.compiled.source === 'person' && links[m.version.objectType]);
  return {
    ...(company ? { company } : {}),
    ...(person
      ? {
          person: {
            objectType: person.version.objectType,
            mapping: person.compiled,
            linkProperty: links[person.version.objectType]!,
          },
        }
      : {}),
  };
}

export async function resolveTarget(
  connectors: readonly CrmConnector[],
  mappings: MappingSource,
  crm: string,
  companyId: string,
  options: CallOptions,
): Promise<DiscoveryTarget> {
  const connector = connectorFor(connectors, { crm });
  if (!connector) throw new DiscoveryError(404, 'not_found', `crm: no connection to ${crm} is configured`, 'crm');
  if (!connector.findRecords || !connector.createRecords)
    throw new DiscoveryError(400, 'not_supported', `crm: discovery does not support ${crm}`, 'crm');
  const { company: companyMapping, person } = discoveryMappings(mappings, connector);
  if (!companyMapping)
    throw new DiscoveryError(
      409,
      'no_company_mapping',
      `crm: ${crm} has no active company mapping, so no company carries a partner id to search at`,
      'crm',
    );
  if (!person)
    throw new DiscoveryError(
      409,
      'no_person_mapping',
      `crm: ${crm} has no active person mapping for an object linked with companies; discovery writes new ` +
        'people through it',
      'crm',
    );
  const partnerIdProperty = companyMapping.document.match.find((m) => m.by === 'id')?.property;
  if (!partnerIdProperty)
    throw new DiscoveryError(
      409,
      'no_partner_id',
      `crm: the ${crm} ${companyMapping.object} mapping keeps no partner id (a match rule "by: id"), so ` +
        'discovery cannot tell which partner company a record is',
      'crm',
    );

  const companyObject = connector.companyObjectType ?? companyMapping.object;
  const nameProperty = NAME_PROPERTY[connector.crm] ?? 'name';
  const marketProperty = companyMapping.document.market.property;
  const properties = [...new Set([partnerIdProperty, nameProperty, ...(marketProperty ? [marketProperty] : [])])];
  const recordId = await companyIdOf(connector, companyObject, companyId, options);
  const [record] = await connector.readRecords(companyObject, [recordId], properties, options);
  if (!record)
    throw new DiscoveryError(
      404,
      'company_not_found',
      `companyId: ${crm} has no ${companyObject} with id ${companyId}`,
      'companyId',
    );
  const partnerId = record.properties[partnerIdProperty];
  if (!partnerId) {
    throw new DiscoveryError(
      409,
      'company_not_enriched',
      `companyId: ${crm} ${companyObject} ${companyId} is not enriched yet (its ${partnerIdProperty} is ` +
        'empty); enrich it first, then discover its people',
      'companyId',
    );
  }
  return {
    connector,
    company: {
      id: record.id,
      name: record.properties[nameProperty] ?? null,
      partnerId,
      market: companyMapping.market(record.properties),
    },
    companyObject,
    person,
  };
}

/**
 * The record id of the company asked for: the id itself, or, for a domain (`acme.example`, which no
 * CRM id looks like), the oldest company with that domain, so a person can name a company as they know it.
 */
async function companyIdOf(
  connector: CrmConnector,
  companyObject: string,
  companyId: string,
  options: CallOptions,
): Promise<string> {
  const domain = companyId.includes('.') ? domainOf(companyId) : undefined;
  if (!domain) return companyId;
  if (!connector.findCompaniesByDomain)
    throw new DiscoveryError(
      400,
      'not_supported',
      `companyId: ${connector.crm} companies cannot be found by domain here; give the record id`,
      'companyId',
    );
  const match = (await connector.findCompaniesByDomain([domain], options)).get(domain);
  if (!match)
    throw new DiscoveryError(
      404,
      'company_not_found',
      `companyId: ${connector.crm} has no ${companyObject} with the domain ${domain}`,
      'companyId',
    );
  return match.id;
}

/** The properties discovery needs that the CRM lacks (the source tag); checked once they exist. */
export async function missingProperties(target: DiscoveryTarget): Promise<string[]> {
  const schema = await target.connector.readSchema(target.person.objectType);
  return missingDiscoveryProperties(target.person.mapping.document, schema);
}

/**
 * A profile handle from a stored profile URL
 * (`https://www.linkedin.com/in/jane-doe-1/` -> `jane-doe-1`), or the handle itself.
 */
export function profileHandle(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const text = value.trim();
  const m = /linkedin\.com\/in\/([^/?#\s]+)/i.exec(text);
  if (m) return decodeURIComponent(m[1]!).toLowerCase();
  return /^[\w-]+$/.test(text) ? text.toLowerCase() : undefined;
}

/** The spellings a profile URL is stored in, for an exact-value search. */
function profileUrls(handle: string): string[] {
  return [
    'https://www.linkedin.com/in/',
    'https://linkedin.com/in/',
    'http://www.linkedin.com/in/',
    'www.linkedin.com/in/',
    'linkedin.com/in/',
  ].flatMap((p) => [`${p}${handle}`, `${p}${handle}/`]);
}

export interface ExistingMatch {
  record: CrmRecord;
  by: 'partner id' | 'profile' | 'e-mail';
}

/**
 * Records of the person object that are these people already, by the mapping's partner-id and profile
 * match properties, in one or two searches: person id -> record.
 */
export async function findExisting(
  target: DiscoveryTarget,
  people: { personId: string; handle?: string }[],
  options: CallOptions,
): Promise<Map<string, ExistingMatch>> {
  const { mapping, objectType, linkProperty } = target.person;
  const idProperty = mapping.document.match.find((m) => m.by === 'id')?.property;
  const profile = mapping.document.match.find((m) => m.by === 'ln_url' || m.by === 'ln_slug');
  const conditions = [
    ...(idProperty ? [{ property: idProperty, values: people.map((p) => p.personId) }] : []),
    ...(profile
      ? [
          {
            property: profile.property,
            values: people.flatMap((p) =>
              p.handle ? (profile.by === 'ln_url' ? profileUrls(p.handle) : [p.handle]) : [],
            ),
          },
        ]
      : []),
  ].filter((c) => c.values.length > 0);
  const out = new Map<string, ExistingMatch>();
  if (conditions.length === 0) return out;
  const properties = [
    ...new Set([...(idProperty ? [idProperty] : []), ...(profile ? [profile.property] : []), linkProperty]),
  ];
  const records = await target.connector.findRecords!(objectType, conditions, properties, options);
  const byId = new Map(people.map((p) => [p.personId.toLowerCase(), p.personId]));
  const byHandle = new Map(people.flatMap((p) => (p.handle ? [[p.handle.toLowerCase(), p.personId] as const] : [])));
  // Oldest first, so a person held twice is matched with the record made first.
  records.sort(
    (a, b) =>
      (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.id.localeCompare(b.id, undefined, { numeric: true }),
  );
  for (const record of records) {
    const viaId = idProperty ? byId.get((record.properties[idProperty] ?? '').toLowerCase()) : undefined;
    const viaHandle = profile ? byHandle.get(profileHandle(record.properties[profile.property]) ?? '') : undefined;
    const personId = viaId ?? viaHandle;
    if (personId && !out.has(personId)) out.set(personId, { record, by: viaId ? 'partner id' : 'profile' });
  }
  return out;
}
