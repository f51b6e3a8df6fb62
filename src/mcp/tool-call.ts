/**
 * What every tool call goes through: the scope the tool declares, checked again where it runs (the
 * route and the SDK answer 403 before a call gets here; this keeps a tool from running on any other
 * path that reaches it), the caller's identity (the OAuth client), an audit row under the tool's name
 * saying who asked and what came of it (never the looked-up values themselves), and errors turned into
 * tool results with isError and a message the assistant can act on, not protocol errors.
 */
import { randomUUID } from 'node:crypto';
import type { AuthInfo, CallToolResult, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import { AppError } from '../core/errors.js';
import { logger } from '../logger.js';
import type { AuditOutcome } from '../store/audit-log.js';
import type { ClientBudget } from './client-budget.js';
import type { McpContext } from './mcp-context.js';
import { requireScope } from './scope-challenge.js';
import { TOOL_SCOPES, type ToolName } from './scopes.js';

const log = logger('mcp.tools');

/** Audit rows of tool calls are kept under this connection and object type, one record per tool. */
export const TOOL_AUDIT = { connection: 'mcp', objectType: 'tool' } as const;

export interface ToolContext {
  service: McpContext;
  auth: AuthInfo;
  /** How long enrich_record waits for the lane. */
  enrichWaitMs: number;
  /** The caller's share of the day's partner credits. */
  budget: ClientBudget;
}

/** `mcp:<client name> (<client id>)`: the audit log's name for the caller. */
export function actorOf(auth: AuthInfo): string {
  const name = typeof auth.extra?.clientName === 'string' ? auth.extra.clientName : auth.clientId;
  return name === auth.clientId ? `mcp:${auth.clientId}` : `mcp:${name} (${auth.clientId})`;
}

/** The scope challenge a tool's registration declares: the scope TOOL_SCOPES gives it. */
export function toolScope(tool: ToolName): ScopeChallengeHandler {
  return requireScope(TOOL_SCOPES[tool]);
}

/** A refusal the caller can fix (bad input, unknown record): said as it is, audited as refused. */
export class ToolRefusal extends Error {}

export interface ToolOutcome<T> {
  result: T;
  /** One line for the audit log, without personal data. */
  summary: string;
  /** Text for clients that do not read structured content. */
  text?: string;
}

export async function runTool<T extends Record<string, unknown>>(
  ctx: ToolContext,
  tool: ToolName,
  work: () => Promise<ToolOutcome<T>>,
): Promise<CallToolResult> {
  const actor = actorOf(ctx.auth);
  try {
    const needed = TOOL_SCOPES[tool];
    if (!ctx.auth.scopes.includes(needed))
      throw new ToolRefusal(`insufficient_scope: ${tool} needs the ${needed} scope; sign in again and allow it`);
    const { result, summary, text } = await work();
    await audit(ctx, tool, 'ok', summary, actor);
    return { content: [{ type: 'text', text: text ?? JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    const { message, outcome } = describe(error);
    await audit(ctx, tool, outcome, message, actor);
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}

function describe(error: unknown): { message: string; outcome: AuditOutcome } {
  if (error instanceof ToolRefusal) return { message: error.message, outcome: 'refused' };
  if (error instanceof AppError) {
    const advice =
      error.kind === 'transient'
        ? ' This is temporary: try again later.'
        : error.kind === 'config'
          ? ' An admin must fix the service configuration.'
          : '';
    return { message: `${error.message} (${error.code}).${advice}`, outcome: `error:${error.code}` };
  }
  const requestId = randomUUID();
  log.error({ err: error, requestId }, 'an MCP tool call failed');
  return {
    message: `the service failed to answer; its log has the error under request id ${requestId}`,
    outcome: 'error:internal',
  };
}

async function audit(
  ctx: ToolContext,
  tool: ToolName,
  outcome: AuditOutcome,
  reason: string,
  actor: string,
): Promise<void> {
  try {
    await ctx.service.store.audit.record([{ ...TOOL_AUDIT, recordId: tool, outcome, reason, actor }]);
  } catch (error) {
    log.error({ err: error, tool }, 'could not write the audit row of an MCP tool call');
  }
}
