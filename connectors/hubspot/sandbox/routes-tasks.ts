/**
 * CRM objects v3 tasks: create a task (optionally associated with contacts, task-to-contact type 204)
 * and read it back, as crm-enrich's job-change action does. Tasks are kept apart from contacts and
 * companies: they have no custom properties, no search and no webhooks here.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { SandboxObjectStore } from './object-store.js';
import { sendError, sendNotFound } from './wire-errors.js';

/** HubSpot-defined association type of a task to a contact. */
export const TASK_TO_CONTACT = 204;

export interface SandboxTask {
  id: string;
  properties: Record<string, string>;
  /** Contact ids the task is associated with. */
  contacts: string[];
  createdAt: string;
}

const TASK_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'WAITING', 'COMPLETED', 'DEFERRED'];

const TaskInput = z.object({
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

export class SandboxTasks {
  private readonly tasks = new Map<string, SandboxTask>();
  private counter = 0;

  all(): SandboxTask[] {
    return structuredClone([...this.tasks.values()]);
  }

  routes(store: SandboxObjectStore): Router {
    const r = Router();
    r.post('/crm/v3/objects/tasks', (req, res) => {
      const parsed = TaskInput.safeParse(req.body);
      if (!parsed.success) {
        sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `Invalid input JSON: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
        return;
      }
      const { properties, associations } = parsed.data;
      if (!properties.hs_timestamp) {
        sendError(res, 400, 'VALIDATION_ERROR', 'Property values were not valid: hs_timestamp is required', {
          errors: [
            {
              message: 'hs_timestamp is required',
              code: 'REQUIRED_PROPERTY',
              context: { propertyName: ['hs_timestamp'] },
            },
          ],
        });
        return;
      }
      if (properties.hs_task_status && !TASK_STATUSES.includes(properties.hs_task_status)) {
        sendError(
          res,
          400,
          'VALIDATION_ERROR',
          `${properties.hs_task_status} was not one of the allowed options: ${TASK_STATUSES.join(', ')}`,
        );
        return;
      }
      const contacts: string[] = [];
      for (const association of associations) {
        if (
          !association.types.every(
            (t) => t.associationCategory === 'HUBSPOT_DEFINED' && t.associationTypeId === TASK_TO_CONTACT,
          )
        ) {
          sendError(
            res,
            400,
            'VALIDATION_ERROR',
            `only the HUBSPOT_DEFINED task-to-contact association (${TASK_TO_CONTACT}) is served by the sandbox`,
          );
          return;
        }
        if (!store.get('contacts', association.to.id)) {
          sendError(
            res,
            400,
            'VALIDATION_ERROR',
            `One or more associations are invalid: no contact ${association.to.id}`,
          );
          return;
        }
        contacts.push(association.to.id);
      }
      const id = String(90_000_000 + ++this.counter);
      const at = new Date().toISOString();
      const task: SandboxTask = {
        id,
        properties: { ...properties, hs_task_status: properties.hs_task_status ?? 'NOT_STARTED', hs_object_id: id },
        contacts,
        createdAt: at,
      };
      this.tasks.set(id, task);
      res.status(201).json({ id, properties: task.properties, createdAt: at, updatedAt: at, archived: false });
    });
    r.get('/crm/v3/objects/tasks/:id', (req, res) => {
      const task = this.tasks.get(String(req.params.id));
      if (!task) return sendNotFound(res, `Task ${String(req.params.id)}`);
      res.json({
        id: task.id,
        properties: task.properties,
        createdAt: task.createdAt,
        updatedAt: task.createdAt,
        archived: false,
      });
    });
    return r;
  }
}
