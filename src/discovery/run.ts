/**
 * A discovery run, acting on a preview's candidates: each new person is claimed in Postgres (so no run,
 * on any instance, creates anyone twice), looked up for one credit through the same cache, budget and
 * limiter as enrichment, checked against the CRM by e-mail, created through the person mapping, linked
 * with the company, and left with state and audit rows by the builder an enrichment's rows come from
 * (src/enrich/record/outcome-rows.ts).
 */
import type { Priority } from '../core/limiter.js';
import type { CompanyLinkResult, CrmRecord } from '../core/connector.js';
import { planValues } from '../mapping/index.js';
import { BudgetExhaustedError, LOOKUPS_COUNTER } from '../enrich/partner-lookups.js';
import { linkAudit, type CompanyLinkPlan } from '../enrich/employers/company-link.js';
import { createAsOwn } from '../enrich/own-creation.js';
import type { AuditEntry } from '../enrich/ports.js';
import { outcomeRows, type RecordOutcome } from '../enrich/record/outcome-rows.js';
import { appliedHash } from '../enrich/record/record-plan.js';
import { logger } from '../logger.js';
import type { Reservation } from '../store/daily-reservations.js';
import { emailProperty, identityValues } from './identity.js';
import type { DiscoveryTarget } from './target.js';
import type {
  Candidate,
  DiscoveryOptions,
  DiscoveryOutcome,
  DiscoveryPreview,
  DiscoveryProgress,
  DiscoveryRunResult,
} from './types.js';

const log = logger('discovery');

/** An open claim older than this belongs to a run that died; another run may take the person. */
const STALE_CLAIM_MS = 10 * 60_000;

/** Records discovery created today plus those that runs under way hold: what DISCOVERY_DAILY_LIMIT counts. */
export const DISCOVERY_CREATED_COUNTER = 'discovery_created';

/**
 * Reserve, then spend: the run takes its share of today's records (within DISCOVERY_DAILY_LIMIT) and one
 * credit for each (within PARTNER_DAILY_LOOKUP_BUDGET) in Postgres before it spends anything, so runs
 * started at once, on any instance, cannot all pass a limit each saw room under; what it did not use
 * goes back when it ends, however it ends.
 */
export async function runDiscovery(
  options: DiscoveryOptions,
  preview: DiscoveryPreview,
  target: DiscoveryTarget,
  onProgress: ((p: DiscoveryProgress) => void) | undefined,
  priority: Priority,
): Promise<DiscoveryRunResult> {
  const wanted = preview.candidates.filter((c) => c.action === 'create').length;
  const records = await options.reservations.reserve(DISCOVERY_CREATED_COUNTER, wanted, options.dailyMax);
  let credits: Reservation | undefined;
  try {
    credits = await options.reservations.reserve(LOOKUPS_COUNTER, records.granted, options.dailyBudget);
    return await act(options, preview, target, onProgress, priority, records, credits);
  } finally {
    for (const held of [records, credits]) {
      await held?.close().catch((error: unknown) => {
        log.warn(
          { err: error, counter: held.name },
          'a discovery run could not give back what it reserved; it stays counted until the day ends',
        );
      });
    }
  }
}

async function act(
  options: DiscoveryOptions,
  preview: DiscoveryPreview,
  target: DiscoveryTarget,
  onProgress: ((p: DiscoveryProgress) => void) | undefined,
  priority: Priority,
  records: Reservation,
  credits: Reservation,
): Promise<DiscoveryRunResult> {
  // The people past the records this run got were taken by runs that reserved first.
  const creating = preview.candidates.filter((c) => c.action === 'create');
  const refused = new Set(creating.slice(records.granted).map((c) => c.personId));
  const reason = `over today's discovery limit (DISCOVERY_DAILY_LIMIT ${options.dailyMax}); other runs took the rest`;
  const candidates = preview.candidates.map((c): Candidate =>
    refused.has(c.personId) ? { ...c, action: 'skip', code: 'over_daily_limit', reason, credit: false } : c,
  );
  const acting = candidates.filter((c) => c.action !== 'skip');
  const progress: DiscoveryProgress = { total: acting.length, done: 0, created: 0, linked: 0, skipped: 0 };
  const people: DiscoveryOutcome[] = candidates
    .filter((c) => c.action === 'skip' && c.code !== 'over_daily_limit')
    .map((c) => ({ personId: c.personId, action: 'skipped', code: c.code, reason: c.reason, recordId: c.recordId }));
  let stopped: DiscoveryRunResult['stopped'] = null;
  const overDaily = candidates.filter((c) => c.code === 'over_daily_limit').length;
  const overLimit = preview.beyondLimit + overDaily;
  if (overLimit) {
    const daily = overDaily > 0;
    stopped = daily
      ? {
          reason: 'daily_limit',
          message:
            `stopped at today's discovery limit (DISCOVERY_DAILY_LIMIT ${options.dailyMax}); ` +
            `${overLimit} more candidate(s) wait for tomorrow`,
        }
      : {
          reason: 'run_limit',
          message:
            `stopped at this run's limit of ${preview.limit}; ${overLimit} more candidate(s) ` + 'fit the persona',
        };
  }
  const step = () => {
    progress.done++;
    onProgress?.({ ...progress });
  };
  onProgress?.({ ...progress });

  // People to create: claimed, then looked up one by one (one credit each, unless cached).
  const looked: { candidate: Candidate; person: Record<string, unknown>; identity: Record<string, string> }[] = [];
  const connection = target.connector.connection;
  const skip = (candidate: Candidate, code: string, reason: string, recordId: string | null = null) => {
    people.push({ personId: candidate.personId, action: 'skipped', code, reason, recordId });
    progress.skipped++;
  };
  const claimed: Candidate[] = [];
  for (const candidate of acting.filter((c) => c.action === 'create')) {
    if (stopped && stopped.reason !== 'run_limit' && stopped.reason !== 'daily_limit') break;
    const claim = await options.store.claim(
      connection,
      candidate.personId,
      target.person.objectType,
      target.company.id,
      options.holder,
      STALE_CLAIM_MS,
    );
    if (claim.kind !== 'mine') {
      skip(
        candidate,
        'already_discovered',
        claim.kind === 'done'
          ? `discovery already ${claim.action} this person (record ${claim.recordId ?? 'none'})`
          : 'another discovery run is adding this person right now',
        claim.kind === 'done' ? claim.recordId : null,
      );
      step();
      continue;
    }
    claimed.push(candidate);
    const release = () => options.store.release(connection, candidate.personId, options.holder);
    try {
      const hit = await options.lookups.find(
        'person',
        [{ by: 'id', value: candidate.personId }],
        target.company.market,
        priority,
        credits,
      );
      if (!hit) {
        await options.store.recordAction(
          connection,
          candidate.personId,
          options.holder,
          'not_found',
          null,
          preview.persona,
        );
        skip(candidate, 'not_found', 'the partner found no profile for this person id');
        step();
        continue;
      }
      const identity = identityValues(target.person.mapping, hit.data);
      const emailProp = emailProperty(target.person.mapping);
      if (!emailProp || !identity[emailProp]) {
        await options.store.recordAction(
          connection,
          candidate.personId,
          options.holder,
          'no_email',
          null,
          preview.persona,
        );
        skip(candidate, 'no_email', 'the profile has no e-mail address to create a contact with');
        step();
        continue;
      }
      looked.push({ candidate, person: hit.data, identity });
    } catch (error) {
      await release();
      if (error instanceof BudgetExhaustedError) {
        stopped = { reason: 'budget', message: error.message };
        break;
      }
      log.warn(
        { err: error, crm: target.connector.crm, company: target.company.id },
        'a discovery lookup failed; the run stops and the rest can run again',
      );
      stopped = {
        reason: 'partner_error',
        message:
          `the partner lookup failed (${(error as Error).message}); nothing was spent on the people ` +
          'left, run again to go on',
      };
      break;
    }
  }
  for (const c of acting.filter(
    (c) => c.action === 'create' && !claimed.includes(c) && !people.some((p) => p.personId === c.personId),
  )) {
    skip(c, stopped?.reason ?? 'not_run', stopped?.message ?? 'not run');
  }

  // One search for their e-mail addresses: a person the CRM holds under another key is linked, not created twice.
  const emailProp = emailProperty(target.person.mapping)!;
  const links: { candidate: Candidate; record: CrmRecord; by: string }[] = acting
    .filter((c) => c.action === 'link')
    .map((c) => ({ candidate: c, record: { id: c.recordId!, properties: {} }, by: 'partner id or profile' }));
  let toCreate = looked;
  if (looked.length) {
    const held = await target.connector.findRecords!(
      target.person.objectType,
      [{ property: emailProp, values: looked.map((l) => l.identity[emailProp]!) }],
      [emailProp, target.person.linkProperty],
      { priority },
    );
    const byEmail = new Map(held.map((r) => [(r.properties[emailProp] ?? '').toLowerCase(), r]));
    toCreate = [];
    for (const l of looked) {
      const record = byEmail.get(l.identity[emailProp]!.toLowerCase());
      if (!record) toCreate.push(l);
      else if (record.properties[target.person.linkProperty] === target.company.id) {
        await options.store.recordAction(
          connection,
          l.candidate.personId,
          options.holder,
          'already_contact',
          record.id,
          preview.persona,
        );
        skip(
          l.candidate,
          'already_contact',
          `already a contact at this company (record ${record.id}, matched by e-mail)`,
          record.id,
        );
        step();
      } else links.push({ candidate: l.candidate, record, by: 'e-mail' });
    }
  }

  // Create the rest in one batch, through the person mapping, tagged and linked.
  const now = new Date();
  const outcomes: RecordOutcome[] = [];
  const audit: AuditEntry[] = [];
  const where = {
    connection,
    objectType: target.person.objectType,
    refreshAfterDays: options.refreshAfterDays,
  };
  const why =
    `discovery at ${target.company.name ?? target.company.id} ` +
    `(${preview.persona ? `persona ${preview.persona}: ` : ''}${preview.description})`;
  if (toCreate.length) {
    const mapping = target.person.mapping;
    const inWrite = target.connector.companyLinkInWrite === true;
    const source = mapping.document.discovery?.source;
    const inputs = toCreate.map((l) => {
      const planned = planValues(mapping, {}, l.person, {}, now);
      const properties = {
        ...l.identity,
        ...planned.writes,
        ...(source ? { [source.target]: source.value } : {}),
        ...(inWrite ? { [target.person.linkProperty]: target.company.id } : {}),
      };
      return { l, planned, properties };
    });
    const results = await createAsOwn(
      options.created,
      where,
      () =>
        target.connector.createRecords!(
          target.person.objectType,
          inputs.map((i) => i.properties),
          { priority },
        ),
      (created) => created.filter((r) => r.ok && !r.existingId).map((r) => r.id),
    );
    for (const [i, input] of inputs.entries()) {
      const result = results[i]!;
      const { candidate } = input.l;
      if (result.existingId) {
        links.push({ candidate, record: { id: result.existingId, properties: {} }, by: 'e-mail' });
        continue;
      }
      if (!result.ok) {
        await options.store.release(connection, candidate.personId, options.holder);
        skip(
          candidate,
          'create_failed',
          `the CRM refused the new record: ${result.error?.message ?? 'no reason given'}`,
        );
        step();
        continue;
      }
      await options.store.recordAction(
        connection,
        candidate.personId,
        options.holder,
        'created',
        result.id,
        preview.persona,
      );
      outcomes.push({
        recordId: result.id,
        jobId: null,
        result: {
          kind: 'created',
          market: target.company.market,
          partnerId: candidate.personId,
          matchKey: `id:${candidate.personId}`,
          dataHash: appliedHash(input.l.person, mapping),
          values: input.properties,
          mapped: input.planned.writes,
          rules: Object.fromEntries(input.planned.decisions.map((d) => [d.property, d.rule])),
          origin: 'discovery',
          reason: `created by ${why}`,
          company: { id: target.company.id, reason: 'created by discovery at this company' },
        },
      });
      records.take();
      people.push({
        personId: candidate.personId,
        name: personName(input.l.person),
        action: 'created',
        code: 'created',
        reason: `created by ${why}`,
        recordId: result.id,
      });
      progress.created++;
      step();
    }
  }

  // Their state goes in at once: the CRM's creation events that follow are then known as our own.
  if (outcomes.length) {
    const rows = outcomeRows(where, outcomes, now);
    await options.state.store(rows.states, rows.audit);
  }

  // Link the new records (where the link is not part of the record) and the people found already there.
  const created = people.filter((p) => p.action === 'created').map((p) => p.recordId!);
  const linkInputs = [
    ...(target.connector.companyLinkInWrite
      ? []
      : created.map((id) => ({ recordId: id, companyId: target.company.id }))),
    ...links.map((l) => ({
      recordId: l.record.id,
      companyId: target.company.id,
      ...(l.record.properties[target.person.linkProperty]
        ? { currentPrimary: l.record.properties[target.person.linkProperty]! }
        : {}),
    })),
  ];
  const linkResults = await linkWithCompany(target, linkInputs, priority);
  const linkRows = (recordId: string, link: CompanyLinkPlan) =>
    audit.push(...linkAudit(connection, target.person.objectType, recordId, link, null));
  for (const l of links) {
    const result = linkResults.get(l.record.id);
    const failed = !result || result.outcome === 'failed';
    await options.store.recordAction(
      connection,
      l.candidate.personId,
      options.holder,
      failed ? 'link_failed' : 'linked',
      l.record.id,
      preview.persona,
    );
    linkRows(l.record.id, {
      action: 'associate',
      property: target.person.linkProperty,
      current: l.record.properties[target.person.linkProperty] ?? null,
      companyId: target.company.id,
      reason: `found by ${why}; already in the CRM (matched by ${l.by})`,
      outcome: result?.outcome ?? 'failed',
      ...(failed ? { error: result?.error ?? 'no reason given' } : {}),
    });
    if (failed)
      skip(
        l.candidate,
        'link_failed',
        `already in the CRM as record ${l.record.id}, but the CRM refused the link: ` +
          `${result?.error ?? 'no reason given'}`,
        l.record.id,
      );
    else {
      people.push({
        personId: l.candidate.personId,
        action: 'linked',
        code: 'linked',
        reason: `already in the CRM as record ${l.record.id} (matched by ${l.by}); linked with the company`,
        recordId: l.record.id,
      });
      progress.linked++;
    }
    step();
  }
  for (const id of created) {
    const result = linkResults.get(id);
    const link = {
      property: target.person.linkProperty,
      current: null,
      companyId: target.company.id,
      reason: `created at this company by ${why}`,
    };
    if (target.connector.companyLinkInWrite) linkRows(id, { ...link, action: 'write' });
    else if (result)
      linkRows(id, {
        ...link,
        action: 'associate',
        outcome: result.outcome,
        ...(result.error ? { error: result.error } : {}),
      });
  }
  if (audit.length) await options.state.store([], audit);

  log.info(
    {
      crm: target.connector.crm,
      company: target.company.id,
      created: progress.created,
      linked: progress.linked,
      skipped: people.filter((p) => p.action === 'skipped').length,
      stopped: stopped?.reason,
    },
    'discovery run done',
  );
  return {
    crm: target.connector.crm,
    company: target.company,
    created: progress.created,
    linked: progress.linked,
    skipped: people.filter((p) => p.action === 'skipped').length + overLimit,
    // Lookups the partner served for this run (cached profiles and lookups another caller made cost none).
    credits: credits.spent,
    stopped,
    people,
  };
}

async function linkWithCompany(
  target: DiscoveryTarget,
  links: { recordId: string; companyId: string; currentPrimary?: string }[],
  priority: Priority,
): Promise<Map<string, CompanyLinkResult>> {
  const out = new Map<string, CompanyLinkResult>();
  if (links.length === 0) return out;
  const { connector } = target;
  if (connector.companyLinkInWrite) {
    // The link is a field (Salesforce AccountId): written only where it is empty, never replacing a person's choice.
    const empty = links.filter((l) => !l.currentPrimary);
    const results = await connector.writeRecords(
      target.person.objectType,
      empty.map((l) => ({ id: l.recordId, properties: { [target.person.linkProperty]: l.companyId } })),
      { priority },
    );
    empty.forEach((l, i) =>
      out.set(l.recordId, {
        recordId: l.recordId,
        companyId: l.companyId,
        outcome: results[i]?.ok ? 'linked_primary' : 'failed',
        ...(results[i]?.ok ? {} : { error: results[i]?.error?.message ?? 'not written' }),
      }),
    );
    return out;
  }
  if (!connector.linkToCompanies) return out;
  for (const r of await connector.linkToCompanies(target.person.objectType, links, { priority }))
    out.set(r.recordId, r);
  return out;
}

/** A person's name as the partner's profile gives it, for whoever reads what a run did. */
function personName(person: Record<string, unknown>): string | null {
  const name = [person.first_name, person.last_name].filter((part) => typeof part === 'string' && part).join(' ');
  return name || null;
}
