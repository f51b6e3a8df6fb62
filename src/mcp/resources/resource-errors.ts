/**
 * A resource read the caller can fix (an unknown CRM, object or version, a spent share of credits) is
 * a JSON-RPC error with the reason, -32602 as the 2026-07-28 revision gives every unknown resource.
 * Unlike a tool, a resource has no result to carry an error in.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { AppError } from '../../core/errors.js';
import { ToolRefusal } from '../tool-call.js';

export async function readOrRefuse<T>(uri: URL, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ToolRefusal)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { uri: uri.href });
    if (error instanceof AppError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${error.message} (${error.code})`, {
        uri: uri.href,
        code: error.code,
      });
    throw error;
  }
}

/** One JSON document as a resource's contents. */
export function jsonContents(uri: URL, value: unknown) {
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
}
