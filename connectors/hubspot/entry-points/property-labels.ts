/**
 * The labels of an object's HubSpot properties, for the record card: read from the portal's schema (so a
 * custom property shows the label the mapping gave it when it was provisioned, and a renamed one HubSpot's
 * current label), and kept a while, since a card is shown far more often than a portal's properties change.
 */
import type { CrmConnector } from '../../../src/core/connector.js';
import { logger } from '../../../src/logger.js';

const log = logger('connector.hubspot.card');

/** How long labels read once serve later cards. */
const KEEP_MS = 10 * 60_000;

export class PropertyLabels {
  private readonly kept = new Map<string, { at: number; labels: Promise<Map<string, string>> }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Property name to label; empty when the schema cannot be read now (the card then shows the names). */
  labelsOf(connector: CrmConnector, objectType: string): Promise<Map<string, string>> {
    const key = `${connector.connection}/${objectType}`;
    const entry = this.kept.get(key);
    if (entry && this.now() - entry.at < KEEP_MS) return entry.labels;
    const labels = connector.readSchema(objectType).then(
      (properties) => new Map(properties.map((p) => [p.name, p.label])),
      (error: unknown) => {
        log.warn({ err: error, objectType }, 'could not read property labels for the record card');
        this.kept.delete(key);
        return new Map<string, string>();
      },
    );
    this.kept.set(key, { at: this.now(), labels });
    return labels;
  }
}
