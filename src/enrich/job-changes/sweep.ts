/**
 * The job-change sweep: over a segment of one connection's person records (HubSpot: a property filter
 * such as lifecycle stage = customer; Salesforce: the same on a field), the people whose partner data
 * is at least `olderThanDays` old are refreshed as bulk jobs (reason `job_change_sweep`), within what is
 * left of today's bulk lookup budget. Their cached partner answers are made stale first, so each costs
 * exactly one lookup and the refresh sees the partner's data of today; detection rides on that refresh.
 */
import { z } from 'zod';
import { CrmError, type CrmConnector } from '../../core/connector.js';
import { AppError } from '../../core/errors.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { OlderThanDays, SweepSegment } from '../../mapping/sweep-segment.js';
import { queueName } from '../jobs.js';
import { LOOKUPS_COUNTER } from '../partner-lookups.js';
import type { CacheKey, CounterPort, EnqueuePort, NewJob, PipelineState, StatePort } from '../ports.js';

export const SweepRequest = z.strictObject({
  connection: z.string().min(1),
  object: z.string().min(1),
  segment: SweepSegment,
  olderThanDays: OlderThanDays.optional(),
});
export type SweepRequest = z.input<typeof SweepRequest>;

export interface SweepSummary {
  /** Records in the segment. */
  segment: number;
  /** Of those, enriched people whose partner data is old enough. */
  eligible: number;
  /** Refresh jobs stored now. */
  enqueued: number;
  /** Eligible people left for a later sweep: today's bulk budget had no room for them. */
  deferred: number;
}

/** A sweep that cannot run as asked; `field` names what to fix. */
export class SweepError extends AppError {
  constructor(
    code: string,
    message: string,
    readonly field: string,
  ) {
    super(code, message, 'permanent', { field });
  }
}

export interface JobChangeSweepOptions {
  connectors: readonly CrmConnector[];
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
  state: Pick<StatePort, 'getMany'>;
  /** Makes cached partner answers stale, so the refresh asks the partner. */
  cache: { expire(keys: CacheKey[]): Promise<number> };
  counters: Pick<CounterPort, 'get'>;
  enqueue: EnqueuePort;
  /** PARTNER_DAILY_LOOKUP_BUDGET: what bulk work may spend a day. */
  dailyBudget: number;
  /** JOB_CHANGE_MIN_AGE_DAYS, when the request gives no olderThanDays. */
  minAgeDays: number;
}

/** Parses a sweep request, naming every field that is wrong. */
export function parseSweepRequest(body: unknown): z.output<typeof SweepRequest> {
  const parsed = SweepRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  throw new SweepError(
    'invalid_sweep',
    parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    field,
  );
}

export class JobChangeSweep {
  constructor(private readonly options: JobChangeSweepOptions) {}

  private async members(connector: CrmConnector, objectType: string, segment: Segment): Promise<{ id: string }[]> {
    if ('listId' in segment) {
      if (!connector.listMembers) {
        throw new SweepError(
          'segment_not_supported',
          `${connector.connection} has no lists; give {"property", "value"} or {"where"}`,
          'segment.listId',
        );
      }
      try {
        return (await connector.listMembers(objectType, segment.listId, { priority: 'bulk' })).map((id) => ({ id }));
      } catch (error) {
        if (error instanceof CrmError && error.code === 'not_found') {
          throw new SweepError(
            'invalid_sweep',
            `segment.listId: the CRM has no list ${segment.listId}`,
            'segment.listId',
          );
        }
        if (error instanceof CrmError && error.code === 'validation')
          throw new SweepError('invalid_sweep', `segment.listId: ${error.message}`, 'segment.listId');
        throw error;
      }
    }
    if ('where' in segment) {
      if (!connector.findRecordsWhere) {
        throw new SweepError(
          'segment_not_supported',
          `${connector.connection} takes no query condition; give {"property", "value"}`,
          'segment.where',
        );
      }
      try {
        return await connector.findRecordsWhere(objectType, segment.where, [], { priority: 'bulk' });
      } catch (error) {
        if (error instanceof CrmError && error.code === 'validation') {
          throw new SweepError(
            'invalid_sweep',
            `segment.where: the CRM refused the condition (${error.message})`,
            'segment.where',
          );
        }
        throw error;
      }
    }
    if (!connector.findRecords)
      throw new SweepError('segment_not_supported', `${connector.connection} cannot list a segment`, 'segment');
    const values = Array.isArray(segment.value) ? segment.value : [segment.value];
    if (segment.operator === 'EQ' && values.length > 1) {
      throw new SweepError('invalid_sweep', 'segment.value: EQ takes one value; use IN for several', 'segment.value');
    }
    return connector.findRecords(objectType, [{ property: segment.property, values }], [], { priority: 'bulk' });
  }

  async run(body: unknown, now = new Date()): Promise<SweepSummary> {
    const request = parseSweepRequest(body);
    const { connection, object, segment } = request;
    const connector = this.options.connectors.find((c) => c.connection === connection);
    if (!connector)
      throw new SweepError(
        'unknown_connection',
        `no connection "${connection}"; use one of ${this.options.connectors.map((c) => c.connection).join(', ')}`,
        'connection',
      );
    const objectType = connector.objectTypes.find((t) => t.toLowerCase() === object.toLowerCase());
    const mapping = objectType ? this.options.mapping(connector.crm, objectType) : undefined;
    if (!objectType || !mapping || mapping.source !== 'person') {
      throw new SweepError(
        'not_a_person_object',
        `${connection} ${object} is not an enriched person object; sweep contacts or leads`,
        'object',
      );
    }
    const records = await this.members(connector, objectType, segment);
    const days = request.olderThanDays ?? this.options.minAgeDays;
    const cutoff = now.getTime() - days * 86_400_000;
    const eligible: PipelineState[] = [];
    const ids = records.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      const states = await this.options.state.getMany(connection, objectType, ids.slice(i, i + 500));
      for (const state of states.values()) {
        const seen = state.lastEnrichedAt?.getTime();
        if (state.status === 'enriched' && state.partnerId && seen !== undefined && (days === 0 || seen <= cutoff))
          eligible.push(state);
      }
    }
    const used = await this.options.counters.get(LOOKUPS_COUNTER);
    const room = Math.max(0, this.options.dailyBudget - used);
    const taken = eligible.slice(0, room);
    await this.options.cache.expire(taken.flatMap((s) => cacheKeysOf(s)));
    const queue = queueName(connection, objectType);
    const jobs: NewJob[] = taken.map((s) => ({
      queue,
      dedupKey: `job_change_sweep:${connection}:${objectType}:${s.recordId}:${now.toISOString()}`,
      priority: 'bulk',
      data: { connection, objectType, recordId: s.recordId, reason: 'job_change_sweep' },
    }));
    const { inserted } = jobs.length ? await this.options.enqueue.enqueue(jobs) : { inserted: 0 };
    return {
      segment: records.length,
      eligible: eligible.length,
      enqueued: inserted,
      deferred: eligible.length - taken.length,
    };
  }
}

/** The records of a segment: a property filter (every CRM that can find records), or a CRM query condition. */
type Segment = SweepSegment;

/** The cached answers a refresh of this record would read: by its partner id, and by the key that matched last. */
function cacheKeysOf(state: PipelineState): CacheKey[] {
  const keys: CacheKey[] = [{ kind: 'person', by: 'id', value: state.partnerId!, market: '*' }];
  const split = state.matchKey?.indexOf(':') ?? -1;
  if (state.matchKey && split > 0)
    keys.push({
      kind: 'person',
      by: state.matchKey.slice(0, split),
      value: state.matchKey.slice(split + 1),
      market: '*',
    });
  return keys;
}
