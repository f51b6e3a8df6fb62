/**
 * Where the MCP server and its authorization server are, all derived from PUBLIC_URL: the issuer is
 * its origin, the protected resource is `<origin>/mcp`, and the resource's metadata sits at the path
 * RFC 9728 derives from it (`/.well-known/oauth-protected-resource/mcp`).
 */
import { isLoopbackHost } from '../core/oauth-urls.js';

export const MCP_PATH = '/mcp';

export interface McpUrls {
  issuer: string;
  resource: string;
  resourceMetadata: string;
  authorizationServerMetadata: string;
  /** True when the service is reached on this machine only (http://127.0.0.1...). */
  loopback: boolean;
}

export function mcpUrls(publicUrl: string): McpUrls {
  const origin = new URL(publicUrl).origin;
  return {
    issuer: origin,
    resource: `${origin}${MCP_PATH}`,
    resourceMetadata: `${origin}/.well-known/oauth-protected-resource${MCP_PATH}`,
    authorizationServerMetadata: `${origin}/.well-known/oauth-authorization-server`,
    loopback: isLoopbackHost(new URL(origin).hostname),
  };
}

/** Compares resource indicators as RFC 8707 does: the same URL, one trailing slash aside. */
export function sameResource(a: string, b: string): boolean {
  const norm = (v: string) => (URL.canParse(v) ? new URL(v).href : v).replace(/\/$/, '');
  return norm(a) === norm(b);
}
