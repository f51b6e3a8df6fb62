/**
 * Scheduled discovery: companies whose persona property (the company mapping's `discovery.persona`)
 * names a saved persona are visited, and people who newly fit it are added, within the run, daily and
 * credit limits. People already discovered are skipped without a credit, so each visit only adds the
 * people who appeared since the last.
 */
import type { CrmConnector } from '../core/connector.js';
import { logger } from '../logger.js';
import type { Discovery } from './discovery.js';
import { discoveryMappings, DiscoveryError, type MappingSource } from './target.js';

const log = logger('discovery.schedule');

export interface ScheduledDiscoveryResult {
  companies: number;
  created: number;
  linked: number;
  /** Companies passed over, with the reason (unknown persona, not enriched yet, ...). */
  passed: { crm: string; companyId: string; reason: string }[];
  stopped: string | null;
}

export async function runScheduledDiscovery(
  discovery: Discovery,
  connectors: readonly CrmConnector[],
  mappings: MappingSource,
  limit: number,
): Promise<ScheduledDiscoveryResult> {
  const out: ScheduledDiscoveryResult = { companies: 0, created: 0, linked: 0, passed: [], stopped: null };
  for (const connector of connectors) {
    const { company } = discoveryMappings(mappings, connector);
    const property = company?.document.discovery?.persona?.target;
    if (!company || !property || !connector.findRecords) continue;
    const companyObject = connector.companyObjectType ?? company.object;
    const flagged = await connector.findRecords(companyObject, [{ property }], [property], { priority: 'bulk' });
    for (const record of flagged) {
      const persona = record.properties[property]?.trim();
      if (!persona) continue;
      try {
        const result = await discovery.run(
          { crm: connector.crm, companyId: record.id, persona, limit },
          undefined,
          'bulk',
        );
        out.companies++;
        out.created += result.created;
        out.linked += result.linked;
        if (result.stopped && result.stopped.reason !== 'run_limit') {
          out.stopped = result.stopped.message;
          log.info(out, 'scheduled discovery stopped at a limit');
          return out;
        }
      } catch (error) {
        if (!(error instanceof DiscoveryError)) throw error;
        out.passed.push({ crm: connector.crm, companyId: record.id, reason: error.message });
        log.warn(
          { crm: connector.crm, company: record.id, code: error.code },
          `scheduled discovery passed over a company: ${error.message}`,
        );
      }
    }
  }
  log.info(
    { companies: out.companies, created: out.created, linked: out.linked, passed: out.passed.length },
    'scheduled discovery done',
  );
  return out;
}
