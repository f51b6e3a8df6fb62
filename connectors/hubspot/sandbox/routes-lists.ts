/**
 * List memberships, at their v3 and date-based paths: the record ids of a list, a page at a time
 * (`after`, `limit` up to 250), as a job-change sweep over a HubSpot list reads them. Lists are made in
 * process (`createList`); the list definitions API is not served.
 */
import { Router } from 'express';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../api-version.js';
import { sendError } from './wire-errors.js';

const MAX_PAGE = 250;

export class SandboxLists {
  private readonly lists = new Map<string, string[]>();
  private counter = 0;

  /** A static list of these record ids; its id. */
  create(recordIds: string[]): string {
    const id = String(++this.counter);
    this.lists.set(
      id,
      [...new Set(recordIds)].sort((a, b) => Number(a) - Number(b)),
    );
    return id;
  }

  routes(): Router {
    const r = Router();
    for (const version of HUBSPOT_API_VERSIONS)
      r.get(`${HUBSPOT_API_PATHS[version].lists}/:listId/memberships`, (req, res) => {
        const members = this.lists.get(String(req.params.listId));
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
    return r;
  }
}
