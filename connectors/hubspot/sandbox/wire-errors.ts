/**
 * HubSpot's error bodies, so the official client and our connector meet the answers they will meet
 * in production.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { problemsMessage, type PropertyProblem } from './property-validation.js';

export interface ErrorDetail {
  message: string;
  code?: string;
  context?: Record<string, string[]>;
}

export function errorBody(
  category: string,
  message: string,
  extra: { errors?: ErrorDetail[]; context?: Record<string, string[]> } = {},
) {
  return { status: 'error', message, correlationId: randomUUID(), category, ...extra };
}

export function sendError(
  res: Response,
  status: number,
  category: string,
  message: string,
  extra: { errors?: ErrorDetail[]; context?: Record<string, string[]> } = {},
): void {
  res.status(status).json(errorBody(category, message, extra));
}

export function problemDetails(problems: PropertyProblem[]): ErrorDetail[] {
  return problems.map((p) => ({ message: p.message, code: p.code, context: { propertyName: [p.name] } }));
}

export function sendValidation(res: Response, problems: PropertyProblem[]): void {
  sendError(res, 400, 'VALIDATION_ERROR', problemsMessage(problems), { errors: problemDetails(problems) });
}

/**
 * A batch that leaves required properties empty: one 400 for the whole batch, naming each input (its
 * id on an update, its index on a create) and the properties it lacks.
 */
export function sendRequired(res: Response, missing: PropertyProblem[][], ids?: string[]): void {
  const all = [...new Map(missing.flat().map((p) => [p.name, p])).values()];
  const errors = missing.flatMap((problems, i) =>
    problems.map((p) => ({
      message: p.message,
      code: p.code,
      context: { propertyName: [p.name], ids: [ids?.[i] ?? String(i)] },
    })),
  );
  sendError(res, 400, 'VALIDATION_ERROR', problemsMessage(all), { errors });
}

export function sendNotFound(res: Response, what: string): void {
  sendError(res, 404, 'OBJECT_NOT_FOUND', `${what} not found`);
}

export const UNAUTHENTICATED_MESSAGE =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more ' +
  'details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';
