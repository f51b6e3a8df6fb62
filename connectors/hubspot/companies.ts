/**
 * HubSpot companies: found by domain or by partner id and name, created in batches, and linked with
 * contacts through v4 associations (the first link a contact gets is its primary company).
 */
import { websiteDomain } from '../../src/core/domain.js';
import {
  CrmError,
  type CallOptions,
  type CompanyKeys,
  type CompanyLink,
  type CompanyLinkResult,
  type CompanyMatch,
  type CrmConnector,
  type FoundCompany,
  type NewCompany,
  type WriteResult,
} from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { AssociationBatch, ObjectBatch } from './wire-schemas.js';
import { apiType, chunk, HUBSPOT_BATCH_SIZE, SEARCH_PAGE_MAX, type HubspotCalls } from './sdk-objects.js';

/** Inputs per v4 association batch create (HubSpot's limit). */
const ASSOCIATION_BATCH_LIMIT = 2_000;
/** HubSpot-defined contact-to-company association types. */
const CONTACT_TO_COMPANY = { unlabeled: 279, primary: 1 } as const;

type CompanyMethods = Pick<
  CrmConnector,
  'findCompaniesByDomain' | 'findCompaniesByKeys' | 'findCompanies' | 'createCompanies' | 'linkToCompanies'
>;

export function hubspotCompanies({ runner, api, search, priorityFor }: HubspotCalls): Required<CompanyMethods> {
  /**
   * One search per 100 values of each key (HubSpot's limit on IN values), each key a filter group (OR):
   * a new employer's domain, partner id and name cost one call, not two. Oldest first; the oldest
   * company per domain wins. IN matches stored values case aside, so text values go in lower case.
   */
  async function findCompanies(
    query: { domains: string[] } & CompanyKeys,
    callOptions?: CallOptions,
  ): Promise<{ byDomain: Map<string, CompanyMatch>; byKeys: FoundCompany[] }> {
    const domains = [...new Set(query.domains.map(websiteDomain).filter((d) => d))];
    const idProperty = query.partnerIdProperty;
    const ids = idProperty ? [...new Set(query.partnerIds.map((v) => v.toLowerCase()))] : [];
    const names = [...new Set(query.names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
    const wantedDomains = new Set(domains);
    const wantedIds = new Set(ids);
    const wantedNames = new Set(names);
    const byDomain = new Map<string, CompanyMatch>();
    const byKeys = new Map<string, FoundCompany>();
    for (let i = 0; i < Math.max(domains.length, ids.length, names.length); i += HUBSPOT_BATCH_SIZE) {
      const groups: [string, string[]][] = [
        ['domain', domains.slice(i, i + HUBSPOT_BATCH_SIZE)],
        ...(idProperty ? [[idProperty, ids.slice(i, i + HUBSPOT_BATCH_SIZE)] as [string, string[]]] : []),
        ['name', names.slice(i, i + HUBSPOT_BATCH_SIZE)],
      ];
      const filterGroups = groups
        .filter(([, values]) => values.length)
        .map(([propertyName, values]) => ({ filters: [{ propertyName, operator: 'IN', values }] }));
      let after: string | undefined;
      do {
        const page = await search(
          'companies',
          {
            filterGroups,
            sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
            properties: ['domain', 'name', ...(idProperty ? [idProperty] : [])],
            limit: SEARCH_PAGE_MAX,
            ...(after ? { after } : {}),
          },
          callOptions?.priority ?? 'bulk',
        );
        for (const company of page.results) {
          // A company found through one group may hold another's key too: each is told by what it holds.
          const domain = websiteDomain(company.properties.domain ?? '');
          if (wantedDomains.has(domain)) {
            const match = byDomain.get(domain);
            if (match) match.others.push(company.id);
            else byDomain.set(domain, { id: company.id, others: [] });
          }
          const partnerId = idProperty ? (company.properties[idProperty] ?? null) : null;
          const name = company.properties.name ?? null;
          if (
            (partnerId !== null && wantedIds.has(partnerId.toLowerCase())) ||
            (name !== null && wantedNames.has(name.trim().toLowerCase()))
          ) {
            byKeys.set(company.id, { id: company.id, partnerId, name });
          }
        }
        after = page.paging?.next?.after;
      } while (after);
    }
    return { byDomain, byKeys: [...byKeys.values()] };
  }

  return {
    async findCompaniesByDomain(domains: string[], callOptions?: CallOptions): Promise<Map<string, CompanyMatch>> {
      return (await findCompanies({ domains, partnerIds: [], names: [] }, callOptions)).byDomain;
    },

    async findCompaniesByKeys(keys: CompanyKeys, callOptions?: CallOptions): Promise<FoundCompany[]> {
      return (await findCompanies({ domains: [], ...keys }, callOptions)).byKeys;
    },

    findCompanies,

    async createCompanies(companies: NewCompany[], callOptions?: CallOptions): Promise<WriteResult[]> {
      const out: WriteResult[] = [];
      for (const part of chunk(companies, HUBSPOT_BATCH_SIZE)) {
        const inputs = part.map((c) => ({
          properties: { ...c.properties, domain: c.domain, name: c.name },
          associations: [],
        }));
        try {
          const res = parseCrmAnswer(
            'hubspot',
            ObjectBatch,
            await runner.run('company_create', callOptions?.priority ?? priorityFor(part.length), () =>
              api.batchCreate('companies', inputs),
            ),
            'company_create',
          );
          // HubSpot does not promise the input order in a batch answer: each result is matched by its domain.
          const byDomain = new Map<string, string>();
          for (const r of res.results) byDomain.set(websiteDomain(r.properties.domain ?? ''), r.id);
          for (const c of part) {
            const id = byDomain.get(websiteDomain(c.domain));
            out.push(
              id
                ? { id, ok: true }
                : {
                    id: '',
                    ok: false,
                    error: {
                      code: 'not_created',
                      message: `HubSpot did not create a company for ${c.domain}`,
                      retryable: true,
                    },
                  },
            );
          }
        } catch (error) {
          const e = error instanceof CrmError ? error : undefined;
          if (!e || e.code !== 'validation') throw error;
          for (const _ of part)
            out.push({ id: '', ok: false, error: { code: 'validation', message: e.message, retryable: false } });
        }
      }
      return out;
    },

    async linkToCompanies(
      objectType: string,
      links: CompanyLink[],
      callOptions?: CallOptions,
    ): Promise<CompanyLinkResult[]> {
      if (apiType(objectType) !== 'contacts')
        throw new CrmError('hubspot', 'validation', `HubSpot links contacts with companies, not ${objectType} records`);
      const results = new Map<CompanyLink, CompanyLinkResult>();
      const todo = links.filter((link) => {
        if (link.currentPrimary !== link.companyId) return true;
        results.set(link, { recordId: link.recordId, companyId: link.companyId, outcome: 'already_linked' });
        return false;
      });
      for (const part of chunk(todo, ASSOCIATION_BATCH_LIMIT)) {
        const inputs = part.map((link) => ({
          from: { id: link.recordId },
          to: { id: link.companyId },
          types: [CONTACT_TO_COMPANY.unlabeled, ...(link.currentPrimary ? [] : [CONTACT_TO_COMPANY.primary])].map(
            (associationTypeId) => ({ associationCategory: 'HUBSPOT_DEFINED' as const, associationTypeId }),
          ),
        }));
        const res = parseCrmAnswer(
          'hubspot',
          AssociationBatch,
          await runner.run('association_create', callOptions?.priority ?? priorityFor(part.length), () =>
            api.createAssociations('contacts', 'companies', inputs),
          ),
          'association_create',
        );
        const made = new Set(res.results.map((r) => `${r.fromObjectId}:${r.toObjectId}`));
        const failure = res.errors.length ? res.errors.map((e) => e.category).join(', ') : 'not linked';
        for (const link of part) {
          const ok = made.has(`${link.recordId}:${link.companyId}`);
          results.set(link, {
            recordId: link.recordId,
            companyId: link.companyId,
            outcome: ok ? (link.currentPrimary ? 'linked' : 'linked_primary') : 'failed',
            ...(ok ? {} : { error: failure }),
          });
        }
      }
      return links.map((link) => results.get(link)!);
    },
  };
}
