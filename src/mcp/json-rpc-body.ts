/**
 * What /mcp accepts as a body, decided here and never left to the SDK: a request whose body was not
 * parsed here is refused, because the transport would otherwise read the raw body itself with a more
 * lenient parser, after the scope check had seen nothing (a `Content-Type: application/json` followed
 * by a no-break space once ran write tools with a read token that way).
 *
 * - a content type other than application/json: 415;
 * - no body, a body that is not JSON, or not an object or array: 400 with JSON-RPC -32700;
 * - over the size limit: 413;
 * - a JSON-RPC batch (an array) under protocol version 2025-06-18 or later, which removed batching:
 *   400 with -32600. Batches stay for 2025-03-26 clients, whose requests carry no version header.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** Tool calls are a few kilobytes; a megabyte leaves room for long filter lists and nothing more. */
export const MAX_MCP_BODY = '1mb';

/** The first protocol version without JSON-RPC batches. */
const NO_BATCHES_FROM = '2025-06-18';

function refuse(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Refuses from the headers what the headers can refuse, before a byte of the body is read. */
function contentType(req: Request, res: Response, next: NextFunction): void {
  const json = req.is('application/json');
  // The JSON parser reads an empty body as {}: refused here as the parse error it is.
  if (json === null || req.headers['content-length'] === '0')
    return refuse(res, 400, -32700, 'Parse error: the request has no body; send a JSON-RPC message');
  if (json === false) {
    return refuse(
      res,
      415,
      -32000,
      `Unsupported Media Type: Content-Type must be application/json, not ${JSON.stringify(
        (req.headers['content-type'] ?? '').slice(0, 100),
      )}`,
    );
  }
  next();
}

function unreadable(error: { type?: string }, _req: Request, res: Response, next: NextFunction): void {
  if (error.type === 'entity.parse.failed')
    return refuse(res, 400, -32700, 'Parse error: the body is not a JSON object or array');
  if (error.type === 'entity.too.large')
    return refuse(res, 413, -32600, `Invalid Request: the body is larger than ${MAX_MCP_BODY}`);
  if (error.type === 'charset.unsupported' || error.type === 'encoding.unsupported')
    return refuse(res, 415, -32000, 'Unsupported Media Type: send the body as UTF-8 JSON');
  next(error);
}

function parsedMessages(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body === undefined || body === null || typeof body !== 'object')
    return refuse(res, 400, -32700, 'Parse error: the body is not a JSON object or array');
  if (Array.isArray(body)) {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && version >= NO_BATCHES_FROM) {
      return refuse(
        res,
        400,
        -32600,
        `Invalid Request: JSON-RPC batches are not part of protocol version ${version.slice(0, 20)} ` +
          `(removed in ${NO_BATCHES_FROM}); send one message per request`,
      );
    }
    if (body.length === 0) return refuse(res, 400, -32600, 'Invalid Request: an empty batch');
  }
  next();
}

export function jsonRpcBody(): (RequestHandler | express.ErrorRequestHandler)[] {
  return [contentType, express.json({ limit: MAX_MCP_BODY }), unreadable, parsedMessages];
}
