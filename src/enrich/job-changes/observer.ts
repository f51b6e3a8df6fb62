/**
 * The record path's one call into job changes: after a person record's partner lookup, compare what
 * the lookup shows with the role the record's last lookup showed (detect.ts), store the record's role
 * from now on, and when it is a move store it with an audit row on the record's history, then carry
 * out the actions declared for the connection. It rides on the lookup the run made anyway: no credit
 * of its own.
 */
import { EventEmitter } from 'node:events';
import type { CrmConnector, CrmRecord } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { JobChange, NewJobChange, RoleObservation, StoredRole } from '../../store/job-changes.js';
import type { Priority } from '../../core/limiter.js';
import type { Market } from '../../partner/schemas.js';
import { employerOf, type Employer, type EmployerResolution } from '../employers/employer-of.js';
import type { ResolveOptions } from '../employers/employers.js';
import type { AuditEntry } from '../ports.js';
import { companyLinkProperty } from '../record/read-properties.js';
import type { RecordPlan } from '../record/record-plan.js';
import { detectJobChange, type Role } from './detect.js';
import { keepIdentifiers } from './keep-identifiers.js';
import { workEmailAt } from './work-email.js';

/** What job changes need from the store; the store's JobChangeStore is one. */
export interface JobChangePort {
  roles(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, StoredRole>>;
  observe(observation: RoleObservation): Promise<string | undefined>;
  recordActions(id: string, actions: Record<string, string>): Promise<void>;
}

/** What the actions of a move may need beyond the move itself; the new employer is resolved only when asked. */
export interface MoveContext {
  /** The company the record is linked with now (HubSpot's primary company, Salesforce's AccountId). */
  previousCompanyId: string | null;
  /**
   * The new employer's company record, found or created once per domain by the lane's employer resolver
   * without a credit: created with what the person's answer names (name, domain, partner company id),
   * enriched later on its own.
   */
  newCompany(): Promise<{ companyId: string } | { reason: string }>;
  /** The person at the new employer as the partner knows them, when it knows a work e-mail there. */
  newContact: { email: string; firstName: string | null; lastName: string | null } | null;
}

/** Carries out the actions declared for a move; answers what became of each, by action name. */
export type JobChangeActions = (
  change: JobChange,
  record: CrmRecord,
  context: MoveContext,
) => Promise<Record<string, string>>;

/** How the lane links records with companies (its LinkContext), for the actions that follow the person. */
export interface ObservedLinks {
  connector: CrmConnector;
  employers?: {
    resolve(employer: Employer, priority: Priority, options?: ResolveOptions): Promise<EmployerResolution>;
  };
  freeMail?: { has(domain: string): boolean };
}

export interface ObservedLookup {
  connection: string;
  objectType: string;
  record: CrmRecord;
  /** A move takes back the plan's writes to the record's identifiers (keep-identifiers.ts). */
  plan: RecordPlan;
  mapping: CompiledMapping;
  jobId: string | null;
  links?: ObservedLinks;
}

export interface JobChangeObserverOptions {
  store: JobChangePort;
  /** By connection; a connection without actions only records its moves. */
  actions?: (connection: string) => JobChangeActions | undefined;
  now?: () => Date;
}

const storedRole = (role: Role): StoredRole => ({
  personId: role.personId,
  companyId: role.employer.companyId,
  domain: role.employer.domain,
  companyName: role.employer.name,
  title: role.title,
  started: role.started,
});

const knownRole = (stored: StoredRole): Role => ({
  personId: stored.personId,
  employer: { companyId: stored.companyId, domain: stored.domain, name: stored.companyName },
  title: stored.title,
  started: stored.started,
});

/** The record property the mapping fills from the partner's `position`: where the CRM keeps the title. */
function titleProperty(mapping: CompiledMapping): string | undefined {
  return mapping.document.fields.find((f) => f.from === 'position')?.target;
}

export class JobChangeObserver extends EventEmitter<{ detected: [JobChange] }> {
  constructor(private readonly options: JobChangeObserverOptions) {
    super();
  }

  /** Observes one person record's lookup; the move it found, if any. Throws store errors (the run is retried). */
  async observe(input: ObservedLookup): Promise<JobChange | undefined> {
    const { connection, objectType, record, plan, mapping } = input;
    if (plan.kind !== 'planned' || mapping.source !== 'person') return undefined;
    const key = { connection, objectType, recordId: record.id };
    const known = (await this.options.store.roles(connection, objectType, [record.id])).get(record.id);
    const detection = detectJobChange(known && knownRole(known), plan.hit.data);
    if (detection.kind === 'unknown') return undefined;
    if (detection.kind !== 'moved') {
      await this.options.store.observe({ key, role: storedRole(detection.now) });
      return undefined;
    }
    const { from, now } = detection;
    const property = titleProperty(mapping);
    const crmTitle = property ? record.properties[property] : undefined;
    const change: NewJobChange = {
      ...key,
      personId: now.personId,
      kind: detection.how,
      from: from.employer,
      to: now.employer,
      oldTitle: (typeof crmTitle === 'string' && crmTitle.trim()) || from.title,
      newTitle: now.title,
      started: now.started,
      reason: detection.reason,
    };
    const audit: AuditEntry = {
      ...key,
      property: null,
      rule: 'job_change',
      outcome: 'job_change',
      jobId: input.jobId,
      oldValue: from.employer.domain ?? from.employer.companyId,
      newValue: now.employer.domain ?? now.employer.companyId,
      reason: detection.reason,
    };
    const id = await this.options.store.observe({ key, role: storedRole(now), change, audit });
    const stored: JobChange = { ...change, id: id!, detectedAt: this.options.now?.() ?? new Date(), actions: {} };
    // The record run writes this plan next: a move never rewrites how the record is known.
    plan.plan = keepIdentifiers(
      plan.plan,
      mapping.document.match.map((m) => m.property),
    );
    this.emit('detected', stored);
    const act = this.options.actions?.(connection);
    if (act) {
      stored.actions = await act(stored, record, moveContext(input, plan, now.employer.domain));
      await this.options.store.recordActions(stored.id, stored.actions);
    }
    return stored;
  }
}

function moveContext(
  { objectType, record, mapping, links }: ObservedLookup,
  plan: Extract<RecordPlan, { kind: 'planned' }>,
  domain: string | null,
): MoveContext {
  const property = links && companyLinkProperty(links.connector, objectType, mapping);
  const linked = property ? record.properties[property] : undefined;
  const data = plan.hit.data;
  return {
    previousCompanyId: typeof linked === 'string' && linked.trim() ? linked.trim() : null,
    async newCompany() {
      if (!links?.employers || !property) return { reason: `${objectType} records are not linked with companies here` };
      // The partner's employer only: the record's e-mail still names the company the person left.
      const employer = employerOf({
        partner: data,
        partnerDomain: mapping.companyKey(data)?.value,
        market: plan.market as Market,
        freeMail: links.freeMail ?? { has: () => false },
      });
      if (!employer) return { reason: 'the partner names no website for the new employer' };
      // The move rides on the person's lookup: its new employer spends no lookup of its own.
      const resolution = await links.employers.resolve(employer, 'bulk', { spend: false });
      return resolution.kind === 'found' ? { companyId: resolution.companyId } : { reason: resolution.reason };
    },
    newContact: workEmailAt(data, domain),
  };
}
