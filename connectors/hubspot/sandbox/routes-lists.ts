/**
 * Lists, at their v3 and date-based paths: a list's definition by id, its record ids a page at a time
 * (`after`, `limit` up to 250), and a list found by its object type and name (compared without case, as
 * HubSpot does): the calls a backfill, refresh or job-change sweep over a HubSpot list makes. Lists are made in process
 * (`createList`) or over HTTP (`POST /__sandbox/lists`); the rest of the list definitions API is not served.
 */
import express, { Router } from 'express';
import { z } from 'zod';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';
import { sendError } from './wire-errors.js';

const MAX_PAGE = 250;

const NewList = z.object({
  recordIds: z.array(z.string()),
  name: z.string().min(1).optional(),
  objectTypeId: z.enum(['0-1', '0-2']).optional(),
});

export interface SandboxListOptions {
  /** Its name (`List <id>` by default). */
  name?: string;
  /** The object type id of its records: 0-1 contacts (the default), 0-2 companies. */
  objectTypeId?: string;
}

interface SandboxList {
  listId: string;
  name: string;
  objectTypeId: string;
  members: string[];
  createdAt: string;
}

export class SandboxLists {
  private readonly lists = new Map<string, SandboxList>();
  private counter = 0;

  /** A static (MANUAL) list of these record ids; its id. */
  create(recordIds: string[], options: SandboxListOptions = {}): string {
    const listId = String(++this.counter);
    this.lists.set(listId, {
      listId,
      name: options.name ?? `List ${listId}`,
      objectTypeId: options.objectTypeId ?? '0-1',
      members: [...new Set(recordIds)].sort((a, b) => Number(a) - Number(b)),
      createdAt: new Date().toISOString(),
    });
    return listId;
  }

  private definition(list: SandboxList) {
    return {
      listId: list.listId,
      listVersion: 1,
      name: list.name,
      objectTypeId: list.objectTypeId,
      processingStatus: 'COMPLETE',
      processingType: 'MANUAL',
      createdAt: list.createdAt,
      updatedAt: list.createdAt,
      size: list.members.length,
    };
  }

  /** Outside the API (no token): a list made over HTTP, for a sandbox in another process. */
  seedRoutes(): Router {
    const r = Router();
    r.post('/__sandbox/lists', express.json(), (req, res) => {
      const body = NewList.safeParse(req.body);
      if (!body.success) {
        res.status(400).json({ message: 'POST /__sandbox/lists with {"recordIds": [...], "name"?, "objectTypeId"?}' });
        return;
      }
      const { recordIds, ...options } = body.data;
      res.status(201).json({ listId: this.create(recordIds, options) });
    });
    return r;
  }

  routes(): Router {
    const r = Router();
    for (const version of HUBSPOT_API_VERSIONS)
      r.get(`${HUBSPOT_API_PATHS[version].lists}/:listId/memberships`, (req, res) => {
        const members = this.lists.get(String(req.params.listId))?.members;
        if (!members) {
          sendError(res, 404, 'OBJECT_NOT_FOUND', `List ${String(req.params.listId)} does not exist.`);
          return;
        }
        const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), MAX_PAGE);
        const after = req.query.after === undefined ? 0 : Number(req.query.after);
        const page = members.slice(after, after + limit);
        const at = new Date().toISOString();
        const next = after + limit < members.length ? { paging: { next: { after: String(after + limit) } } } : {};
        res.json({ results: page.map((recordId) => ({ recordId, membershipTimestamp: at })), ...next });
      });
    for (const version of HUBSPOT_API_VERSIONS)
      r.get(`${HUBSPOT_API_PATHS[version].lists}/:listId`, (req, res) => {
        const list = this.lists.get(String(req.params.listId));
        if (!list) {
          sendError(res, 404, 'OBJECT_NOT_FOUND', `List ${String(req.params.listId)} does not exist.`);
          return;
        }
        res.json({ list: this.definition(list) });
      });
    for (const version of HUBSPOT_API_VERSIONS)
      r.get(`${HUBSPOT_API_PATHS[version].lists}/object-type-id/:objectTypeId/name/:listName`, (req, res) => {
        const name = String(req.params.listName).toLowerCase();
        const list = [...this.lists.values()].find(
          (l) => l.objectTypeId === req.params.objectTypeId && l.name.toLowerCase() === name,
        );
        if (!list) {
          sendError(res, 404, 'OBJECT_NOT_FOUND', `List with name ${String(req.params.listName)} does not exist.`);
          return;
        }
        res.json({ list: this.definition(list) });
      });
    return r;
  }
}
