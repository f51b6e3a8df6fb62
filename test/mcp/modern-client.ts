/**
 * A client of protocol revision 2026-07-28 on the SDK's own v2 client: no initialize, the version in
 * every request's `_meta`, `Mcp-Method`/`Mcp-Name` headers. Pinned, so a connection that silently fell
 * back to 2025 would fail instead. It holds an access token the 1.x client's sign-in got.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';

export async function connectModern(serviceUrl: string, accessToken: string): Promise<Client> {
  const client = new Client(
    { name: 'crm-enrich-tests-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`), {
      authProvider: { token: async () => accessToken },
    }),
  );
  return client;
}
