/**
 * The official conformance suite's server scenarios have no way to send a bearer token, and /mcp needs
 * one. This signs in to a running service with the SDK's own client (the admin's consent given with the
 * admin token, as on the consent page) and serves a proxy that adds the token to every request it
 * forwards, byte for byte otherwise (Host and Origin included, so the DNS rebinding scenario still
 * meets the service's own checks).
 *
 * Usage: npx tsx test/mcp/conformance/authorized-proxy.ts <service URL> <admin token file> [port]
 * Prints the proxy's /mcp URL, then runs until stopped.
 */
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { MemoryOAuthClient, signIn } from '../oauth-helpers.js';

const [serviceUrl, tokenFile, port = '0'] = process.argv.slice(2);
if (!serviceUrl || !tokenFile) {
  console.error('usage: authorized-proxy.ts <service URL> <admin token file> [port]');
  process.exit(2);
}
const adminToken = readFileSync(tokenFile, 'utf8').trim();
const client = await signIn(serviceUrl, { client: new MemoryOAuthClient({ name: 'Conformance suite' }), adminToken });
const accessToken = client.tokens()!.access_token;
const target = new URL(serviceUrl);

const proxy = createServer((req, res) => {
  const headers = { ...req.headers };
  headers.authorization ??= `Bearer ${accessToken}`;
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
proxy.listen(Number(port), '127.0.0.1', () => {
  const address = proxy.address() as { port: number };
  console.log(`http://127.0.0.1:${address.port}/mcp`);
});
