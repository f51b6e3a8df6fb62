/**
 * Reads a webhook body into memory with a size limit and a deadline. Express's raw parser read a
 * refused body to its end before answering and let a slow sender hold its buffer for Node's whole
 * request timeout (five minutes); here the caller answers at once and the connection is closed.
 */
import type { IncomingMessage } from 'node:http';

export type BodyFailure = 'too_large' | 'too_slow' | 'aborted';

export class BodyReadError extends Error {
  constructor(readonly failure: BodyFailure) {
    super(`the request body could not be read: ${failure}`);
  }
}

export interface BodyLimits {
  maxBytes: number;
  /** The declared Content-Length, when there is one: the body is read into one buffer of that size. */
  declaredBytes?: number;
  /** The whole body must have arrived this long after its head. */
  timeoutMs: number;
}

/** Resolves with the body, or rejects with BodyReadError; reading stops at the first failure. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // With a declared length the chunks go straight into one buffer, so a body is never held twice
    // (chunks and their concatenation); its pages become resident only as the bytes arrive.
    const declared = limits.declaredBytes;
    const whole = declared !== undefined && declared <= limits.maxBytes ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (failure?: BodyFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onAborted);
      if (failure) {
        // Drop what was read now rather than when the caller's answer has gone out.
        chunks.length = 0;
        req.pause();
        reject(new BodyReadError(failure));
      } else {
        resolve(whole ? whole.subarray(0, received) : Buffer.concat(chunks, received));
      }
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > (whole?.length ?? limits.maxBytes)) return finish('too_large');
      if (whole) chunk.copy(whole, received);
      else chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => finish();
    const onAborted = () => finish('aborted');
    const timer = setTimeout(() => finish('too_slow'), limits.timeoutMs);
    req.on('data', onData).on('end', onEnd).on('aborted', onAborted).on('error', onAborted);
  });
}
