/**
 * CRM activities: tasks and notes, at their v3 and date-based paths: create one (optionally associated
 * with contacts and companies by HubSpot's defined types, task to contact 204, note to company 190, ...)
 * and read it back, as crm-enrich's job-change action does with a task. Their associations are read
 * from either side through the association routes. Activities are kept apart from contacts and
 * companies: no custom properties, no search, no webhooks, and not kept across restarts.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';
import {
  ActivityAssociations,
  activityTypeId,
  ACTIVITY_TYPES,
  type ActivityType,
  type RecordType,
} from './activity-associations.js';
import type { SandboxObjectStore } from './object-store.js';
import { sendError, sendNotFound } from './wire-errors.js';

/** A task as `tasks()` lists it: its properties and the contacts it is associated with. */
export interface SandboxTask {
  id: string;
  properties: Record<string, string>;
  /** Contact ids the task is associated with. */
  contacts: string[];
  createdAt: string;
}

interface StoredActivity {
  id: string;
  properties: Record<string, string>;
  createdAt: string;
}

const TASK_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'WAITING', 'COMPLETED', 'DEFERRED'];
/** Where each activity type's ids start, so a task id is never a note's. */
const FIRST_ID: Record<ActivityType, number> = { tasks: 90_000_000, notes: 80_000_000 };

const ActivityInput = z.object({
  properties: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)),
  associations: z
    .array(
      z.object({
        to: z.object({ id: z.coerce.string() }),
        types: z.array(z.object({ associationCategory: z.string(), associationTypeId: z.number().int() })).min(1),
      }),
    )
    .default([]),
});

const wire = (a: StoredActivity) => ({
  id: a.id,
  properties: a.properties,
  createdAt: a.createdAt,
  updatedAt: a.createdAt,
  archived: false,
});

export class SandboxActivities {
  readonly associations = new ActivityAssociations();
  private readonly kept: Record<ActivityType, Map<string, StoredActivity>> = { tasks: new Map(), notes: new Map() };
  private readonly counters: Record<ActivityType, number> = { tasks: 0, notes: 0 };

  exists(type: ActivityType, id: string): boolean {
    return this.kept[type].has(id);
  }

  /** Tasks created over the API, oldest first, with the contacts each is associated with. */
  tasks(): SandboxTask[] {
    return structuredClone(
      [...this.kept.tasks.values()].map((t) => ({
        ...t,
        contacts: this.associations.associated('tasks', t.id, 'contacts').map((c) => c.id),
      })),
    );
  }

  routes(store: SandboxObjectStore): Router {
    const r = Router();
    for (const version of HUBSPOT_API_VERSIONS) {
      for (const type of ACTIVITY_TYPES) {
        const path = `${HUBSPOT_API_PATHS[version].objects}/${type}`;
        r.post(path, (req, res) => this.create(type, store, req.body, res));
        r.get(`${path}/:id`, (req, res) => {
          const found = this.kept[type].get(String(req.params.id));
          if (!found) return sendNotFound(res, `${type === 'tasks' ? 'Task' : 'Note'} ${String(req.params.id)}`);
          res.json(wire(found));
        });
      }
    }
    return r;
  }

  private create(type: ActivityType, store: SandboxObjectStore, body: unknown, res: Response): void {
    const parsed = ActivityInput.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      return sendError(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${issues}`);
    }
    const { properties, associations } = parsed.data;
    if (!properties.hs_timestamp) {
      return sendError(res, 400, 'VALIDATION_ERROR', 'Property values were not valid: hs_timestamp is required', {
        errors: [
          {
            message: 'hs_timestamp is required',
            code: 'REQUIRED_PROPERTY',
            context: { propertyName: ['hs_timestamp'] },
          },
        ],
      });
    }
    if (type === 'tasks' && properties.hs_task_status && !TASK_STATUSES.includes(properties.hs_task_status)) {
      return sendError(
        res,
        400,
        'VALIDATION_ERROR',
        `${properties.hs_task_status} was not one of the allowed options: ${TASK_STATUSES.join(', ')}`,
      );
    }
    const targets: { record: RecordType; id: string }[] = [];
    for (const association of associations) {
      const typeIds = association.types.map((t) => t.associationTypeId);
      // The target's type is told by the association type, as HubSpot reads it.
      const record = (['contacts', 'companies'] as const).find((to) =>
        typeIds.every((t) => t === activityTypeId(type, to)),
      );
      if (!record || association.types.some((t) => t.associationCategory !== 'HUBSPOT_DEFINED')) {
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `One or more associations are invalid: types ${typeIds.join(', ')} are not HubSpot-defined ` +
            `associations of ${type} with contacts or companies`,
        );
      }
      if (!store.get(record, association.to.id)) {
        return sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `One or more associations are invalid: no ${record.slice(0, -1)} with id ${association.to.id}`,
        );
      }
      targets.push({ record, id: association.to.id });
    }
    const id = String(FIRST_ID[type] + ++this.counters[type]);
    const at = new Date().toISOString();
    const activity: StoredActivity = {
      id,
      properties: {
        ...properties,
        ...(type === 'tasks' ? { hs_task_status: properties.hs_task_status ?? 'NOT_STARTED' } : {}),
        hs_object_id: id,
      },
      createdAt: at,
    };
    this.kept[type].set(id, activity);
    for (const target of targets) this.associations.add(type, id, target.record, target.id);
    res.status(201).json(wire(activity));
  }
}
