/**
 * Runs one lane per (connection, object type) that has an active mapping, wakes the right lane when
 * new work is stored, and stops them all cleanly.
 */
import { EventEmitter } from 'node:events';
import type { CrmConnector } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { CompiledMapping } from '../mapping/compile.js';
import { queueName } from './jobs.js';
import { CompanyLinker, type CompanyLinkerOptions } from './company-linker.js';
import type { LaneEvents } from './lane-events.js';
import type { EnqueuePort } from './ports.js';
import { Lane, type LaneOptions } from './lane.js';

export interface EnricherOptions extends Omit<LaneOptions, 'connector' | 'objectType' | 'mapping' | 'companies'> {
  /** Stores the company jobs that people's employers become. */
  enqueue: EnqueuePort;
  /** How long employers' domains gather before one CRM search looks them all up. */
  companyLingerMs?: number;
  connectors: CrmConnector[];
  /** The active compiled mapping of a CRM object, or undefined when that object is not enriched. */
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
}

export class Enricher extends EventEmitter<LaneEvents> {
  private readonly lanes = new Map<string, Lane>();
  private readonly linkers: CompanyLinker[] = [];

  constructor(options: EnricherOptions) {
    super();
    for (const connector of options.connectors) {
      const linker = this.linkerFor(connector, options);
      for (const objectType of connector.objectTypes) {
        if (!options.mapping(connector.kind, objectType)) continue;
        const lane = new Lane({
          ...options,
          ...(linker ? { companies: linker } : {}),
          connector,
          objectType,
          mapping: () => {
            const active = options.mapping(connector.kind, objectType);
            if (!active) throw new Error(`the mapping for ${connector.kind}/${objectType} was removed`);
            return active;
          },
        });
        lane.on('job', (e) => this.emit('job', e));
        lane.on('written', (e) => this.emit('written', e));
        lane.on('error', (e) => this.emit('error', e));
        this.lanes.set(lane.queue, lane);
      }
    }
  }

  /** A connector that can find companies by domain, with an active company mapping, links people to companies. */
  private linkerFor(connector: CrmConnector, options: EnricherOptions): CompanyLinker | undefined {
    const { findCompaniesByDomain, companyObjectType } = connector;
    if (!findCompaniesByDomain || !companyObjectType || !options.mapping(connector.kind, companyObjectType)) return undefined;
    const linker = new CompanyLinker({
      connector: connector as CompanyLinkerOptions['connector'],
      enqueue: options.enqueue,
      refreshAfterDays: options.refreshAfterDays,
      wake: (objectType) => this.wake(connector.connection, objectType, 'bulk'),
      ...(options.companyLingerMs !== undefined ? { lingerMs: options.companyLingerMs } : {}),
    });
    this.linkers.push(linker);
    return linker;
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

  pendingWrite(connection: string, objectType: string, recordId: string): Record<string, string> | undefined {
    return this.lanes.get(queueName(connection, objectType))?.pendingWrite(recordId);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.stop()));
    await Promise.all(this.linkers.map((l) => l.drain()));
  }
}
