/**
 * Progress notifications for a long tool call, sent only when the client asked for them with a
 * progress token, on the response stream of the call itself (both protocol eras). A notification that
 * cannot be sent (the client went away) does not fail the call: the work goes on and is audited.
 */
import type { ServerContext } from '@modelcontextprotocol/server';

/** Reports that `progress` of `total` steps are done (total unknown: undefined), with a short message. */
export type ReportProgress = (progress: number, total: number | undefined, message: string) => Promise<void>;

export function progressReporter(call: ServerContext): ReportProgress {
  const progressToken = call.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return async () => undefined;
  let last = 0;
  return async (progress, total, message) => {
    // The specification asks for a value that grows with every notification of one token.
    if (progress <= last) return;
    last = progress;
    await call.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken, progress, ...(total !== undefined ? { total } : {}), message },
      })
      .catch(() => undefined);
  };
}
