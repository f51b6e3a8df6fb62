/**
 * Salesforce Accounts as the companies of enrichment: found by website domain (an exact match, the
 * oldest first) or by partner id and name, and created through sObject Collections.
 */
import type {
  CallOptions,
  CompanyMatch,
  CrmConnector,
  FoundCompany,
  NewCompany,
  WriteResult,
} from '../../src/core/connector.js';
import { websiteDomain } from '../../src/core/domain.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { isRetryableRecordError } from './errors.js';
import { SaveResults } from './wire-schemas.js';
import { asString, COLLECTION_LIMIT } from './record-wire.js';
import type { SalesforceSession } from './session.js';
import { checkFieldNames, chunkKeyQueries, chunkWebsiteQueries } from './soql.js';

/** Longest host name DNS allows; anything longer is not a domain worth a query. */
const MAX_DOMAIN = 253;

type CompanyMethods = Pick<CrmConnector, 'findCompaniesByDomain' | 'findCompaniesByKeys' | 'createCompanies'>;

export interface SalesforceCompanyCalls {
  session: SalesforceSession;
  version: string;
  maxUriLength?: number;
  queryAll: (soql: string, priority: 'interactive' | 'bulk') => Promise<Record<string, unknown>[]>;
}

export function salesforceCompanies({
  session,
  version,
  maxUriLength,
  queryAll,
}: SalesforceCompanyCalls): Required<CompanyMethods> {
  const { connection, call } = session;
  return {
    async findCompaniesByDomain(domains: string[], callOptions?: CallOptions): Promise<Map<string, CompanyMatch>> {
      const wanted = new Set(
        domains.map(websiteDomain).filter((d) => d.includes('.') && d.length <= MAX_DOMAIN && !/[\s\p{Cc}]/u.test(d)),
      );
      const found = new Map<string, CompanyMatch>();
      if (wanted.size === 0) return found;
      const c = await connection();
      const base = `${c.instanceUrl}/services/data/v${version}/query?q=`.length;
      for (const soql of chunkWebsiteQueries([...wanted], base, maxUriLength)) {
        // LIKE finds look-alikes too (notacme.com for acme.com);
        // only an exact website match counts. Oldest Account wins.
        for (const raw of await queryAll(soql, callOptions?.priority ?? 'bulk')) {
          const domain = websiteDomain(asString(raw.Website) ?? '');
          if (!wanted.has(domain)) continue;
          const match = found.get(domain);
          if (match) match.others.push(String(raw.Id));
          else found.set(domain, { id: String(raw.Id), others: [] });
        }
      }
      return found;
    },

    async findCompaniesByKeys(
      keys: { partnerIdProperty?: string; partnerIds: string[]; names: string[] },
      callOptions?: CallOptions,
    ): Promise<FoundCompany[]> {
      const field = keys.partnerIdProperty;
      if (field) checkFieldNames([field]);
      const terms = [
        ...(field ? [...new Set(keys.partnerIds)].map((v) => ({ field, value: v })) : []),
        ...[...new Set(keys.names.map((n) => n.trim()).filter(Boolean))].map((v) => ({ field: 'Name', value: v })),
      ];
      if (terms.length === 0) return [];
      const c = await connection();
      const base = `${c.instanceUrl}/services/data/v${version}/query?q=`.length;
      const out = new Map<string, FoundCompany>();
      for (const soql of chunkKeyQueries(terms, field ? ['Id', 'Name', field] : ['Id', 'Name'], base, maxUriLength)) {
        for (const raw of await queryAll(soql, callOptions?.priority ?? 'bulk')) {
          out.set(String(raw.Id), {
            id: String(raw.Id),
            partnerId: field ? (asString(raw[field]) ?? null) : null,
            name: asString(raw.Name) ?? null,
          });
        }
      }
      return [...out.values()];
    },

    async createCompanies(companies: NewCompany[], callOptions?: CallOptions): Promise<WriteResult[]> {
      const priority = callOptions?.priority ?? 'bulk';
      const out: WriteResult[] = [];
      for (let start = 0; start < companies.length; start += COLLECTION_LIMIT) {
        const part = companies.slice(start, start + COLLECTION_LIMIT);
        const records = part.map((c) => ({ ...c.properties, Name: c.name, Website: c.domain }));
        const results = parseCrmAnswer(
          'salesforce',
          SaveResults,
          await call('collections.create', priority, (conn) =>
            conn.sobject('Account').create(records, { allOrNone: false }),
          ),
          'collections.create',
        );
        part.forEach((_, i) => {
          const r = results[i];
          if (r?.success && r.id) out.push({ id: r.id, ok: true });
          else {
            const first = r?.errors?.[0];
            const code = first?.statusCode ?? first?.errorCode ?? 'UNKNOWN';
            out.push({
              id: '',
              ok: false,
              error: {
                code,
                message: first?.message ?? 'Salesforce did not create the Account',
                retryable: isRetryableRecordError(code),
              },
            });
          }
        });
      }
      return out;
    },
  };
}
