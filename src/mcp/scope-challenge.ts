/**
 * Step-up authorization (RFC 6750 3.1, the MCP authorization specification's scope challenges): a
 * request the token's scopes do not cover is answered 403 `insufficient_scope` with the scope to ask for.
 * Every tool, resource and prompt declares its scope with `requireScope`, which the SDK checks where it
 * dispatches the request; the /mcp route asks the same function before the SDK sees the body.
 */
import type { ScopeChallenge, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import type { Scope } from './scopes.js';

/**
 * None when the token holds `needed`. Otherwise the scopes to ask for are the token's own and the
 * missing one together: the specification leaves clients to add what they held, and a client that asks
 * for exactly what the challenge names (the 1.x SDK's does) then keeps its other tools.
 */
export function requireScope(needed: Scope): ScopeChallengeHandler {
  return ({ authInfo }) => scopeChallenge(needed, authInfo?.scopes);
}

/** The challenge for `needed` given the token's scopes; undefined when there is no token (not ours to judge). */
export function scopeChallenge(needed: Scope, granted: readonly string[] | undefined): ScopeChallenge | undefined {
  if (!granted || granted.includes(needed)) return undefined;
  return {
    scopes: [...new Set([...granted, needed])] as [string, ...string[]],
    errorDescription: `this needs the ${needed} scope; sign in again and allow it`,
  };
}
