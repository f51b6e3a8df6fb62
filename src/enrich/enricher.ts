/**
 * Runs one lane per (connection, object type) that has an active mapping, wakes the right lane when
 * new work is stored, and stops them all cleanly.
 */
import { EventEmitter } from 'node:events';
import type { CrmConnector } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { CompiledMapping } from '../mapping/compile.js';
import { queueName } from './jobs.js';
import { EmployerResolver, type ClaimsPort, type EmployerConnector } from './employers/employers.js';
import type { LaneEvents } from './lane/lane-events.js';
import { NewCompanyPlanner } from './employers/new-companies.js';
import { PeopleFirst } from './lane/people-first.js';
import type { CreatedRecordsPort, EnqueuePort } from './ports.js';
import { Lane, type LaneOptions, type LaneStopOptions } from './lane/lane.js';

export interface EnricherOptions extends Omit<LaneOptions, 'connector' | 'objectType' | 'mapping' | 'employers'> {
  /** Stores the company jobs that people's employers become. */
  enqueue: EnqueuePort;
  /** Per-domain creation claims shared by every instance. */
  claims: ClaimsPort;
  /** Where the ids of records the service creates are kept, so their creation events are known as its own. */
  created?: CreatedRecordsPort;
  /** Whether a missing employer company is created on this connection (default: yes). */
  createCompanies?: (connector: CrmConnector) => boolean;
  /** How long bulk employers' domains gather before one CRM search looks them all up. */
  companyLingerMs?: number;
  connectors: CrmConnector[];
  /** The active compiled mapping of a CRM object, or undefined when that object is not enriched. */
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
}

export class Enricher extends EventEmitter<LaneEvents> {
  private readonly lanes = new Map<string, Lane>();
  private readonly resolvers: EmployerResolver[] = [];

  constructor(options: EnricherOptions) {
    super();
    for (const connector of options.connectors) {
      const people = new PeopleFirst();
      const employers = this.resolverFor(connector, options, people);
      for (const objectType of connector.objectTypes) {
        if (!options.mapping(connector.crm, objectType)) continue;
        const lane = new Lane({
          ...options,
          ...(employers ? { employers } : {}),
          people,
          connector,
          objectType,
          mapping: () => {
            const active = options.mapping(connector.crm, objectType);
            if (!active) throw new Error(`the mapping for ${connector.crm}/${objectType} was removed`);
            return active;
          },
        });
        lane.on('job', (e) => this.emit('job', e));
        lane.on('written', (e) => this.emit('written', e));
        lane.on('foreignToken', (e) => this.emit('foreignToken', e));
        lane.on('error', (e) => this.emit('error', e));
        this.lanes.set(lane.queue, lane);
      }
    }
  }

  /**
   * A connector that can find companies by domain links people with their employers; a missing company
   * is created where the connector can and creation is on. Found and created companies are enriched
   * when a company mapping is active.
   */
  private resolverFor(
    connector: CrmConnector,
    options: EnricherOptions,
    people: PeopleFirst,
  ): EmployerResolver | undefined {
    const { companyObjectType } = connector;
    if (!connector.findCompaniesByDomain || !companyObjectType) return undefined;
    const companyMapping = options.mapping(connector.crm, companyObjectType);
    const enrichCompanies = !!companyMapping;
    const partnerIdProperty = companyMapping?.document.match.find((m) => m.by === 'id')?.property;
    const resolver = new EmployerResolver({
      connector: connector as EmployerConnector,
      claims: options.claims,
      lookups: options.lookups,
      enqueue: enrichCompanies ? options.enqueue : { enqueue: async () => ({ inserted: 0, duplicates: 0 }) },
      refreshAfterDays: options.refreshAfterDays,
      ...(partnerIdProperty ? { partnerIdProperty } : {}),
      create: !!connector.createCompanies && (options.createCompanies?.(connector) ?? true),
      ...(options.created ? { created: options.created } : {}),
      ...(enrichCompanies
        ? {
            planner: new NewCompanyPlanner({
              connector,
              objectType: companyObjectType,
              mapping: () => options.mapping(connector.crm, companyObjectType),
              lookups: options.lookups,
              state: options.state,
              refreshAfterDays: options.refreshAfterDays,
            }),
          }
        : {}),
      people,
      ...(options.companyLingerMs !== undefined ? { lingerMs: options.companyLingerMs } : {}),
    });
    this.resolvers.push(resolver);
    return resolver;
  }

  get queues(): string[] {
    return [...this.lanes.keys()];
  }

  start(): void {
    for (const lane of this.lanes.values()) lane.start();
  }

  wake(connection: string, objectType: string, priority: Priority): void {
    this.lanes.get(queueName(connection, objectType))?.wake(priority);
  }

  /** Wakes every lane: work came back to the queue (another worker's, after it stopped). */
  wakeAll(): void {
    for (const lane of this.lanes.values()) lane.wake('bulk');
  }

  async stop(options: LaneStopOptions = {}): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.stop(options)));
    await Promise.all(this.resolvers.map((r) => r.drain()));
  }
}
