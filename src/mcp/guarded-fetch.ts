/**
 * GET of a URL that someone outside chose (a client's metadata document), guarded against being used to
 * reach what only this service can reach (SSRF): https only; the host name resolved once, every address
 * checked to be public, and the connection made to that checked address (so a second, different DNS
 * answer cannot slip a private address in); no redirects; a size cap and a deadline for the whole
 * answer. The resolver, the CA and addresses exempt from the public check can be injected only through
 * the options object, which production code never fills: tests serve documents on loopback with those.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { isPublicAddress } from './public-address.js';

export interface GuardedFetchOptions {
  /** Every address of a host name; the system resolver by default. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** CA certificates to trust instead of Node's bundle (a test server's own CA). */
  ca?: string;
  /** Addresses allowed although not public: only a test that serves on loopback sets this. */
  allowAddresses?: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
}

export interface FetchedDocument {
  body: string;
  cacheControl: string | undefined;
}

export class GuardedFetchError extends Error {
  readonly code = 'guarded_fetch_refused';
}

const systemResolve = async (hostname: string) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export async function guardedFetch(url: string, options: GuardedFetchOptions = {}): Promise<FetchedDocument> {
  const maxBytes = options.maxBytes ?? 5 * 1024;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!URL.canParse(url)) throw new GuardedFetchError('expected an absolute URL');
  const target = new URL(url);
  if (target.protocol !== 'https:') throw new GuardedFetchError('only https URLs are fetched');
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const resolveDeadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GuardedFetchError(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const address = await Promise.race([checkedAddress(hostname, options), resolveDeadline]).finally(() =>
    clearTimeout(timer),
  );
  const remainingMs = Math.max(1, timeoutMs - (Date.now() - started));
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    const family = isIP(address);
    if (lookupOptions.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

  return new Promise<FetchedDocument>((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port: target.port || 443,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: pinned,
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          const redirect =
            res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? '; redirects are not followed' : '';
          return fail(new GuardedFetchError(`the server answered ${res.statusCode}${redirect}`));
        }
        if (Number(res.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge(maxBytes));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(tooLarge(maxBytes));
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ body: Buffer.concat(chunks).toString('utf8'), cacheControl: res.headers['cache-control'] });
        });
        res.on('error', fail);
      },
    );
    const deadline = setTimeout(
      () => fail(new GuardedFetchError(`no complete answer within ${timeoutMs} ms`)),
      remainingMs,
    );
    function fail(error: Error) {
      clearTimeout(deadline);
      req.destroy();
      reject(error instanceof GuardedFetchError ? error : new GuardedFetchError(`the fetch failed: ${error.message}`));
    }
    req.on('error', fail);
    req.end();
  });
}

async function checkedAddress(hostname: string, options: GuardedFetchOptions): Promise<string> {
  let addresses: string[];
  try {
    addresses = isIP(hostname) ? [hostname] : await (options.resolve ?? systemResolve)(hostname);
  } catch {
    throw new GuardedFetchError(`the host name ${hostname} does not resolve`);
  }
  if (!addresses.length) throw new GuardedFetchError(`the host name ${hostname} does not resolve`);
  const allowed = new Set(options.allowAddresses ?? []);
  const refused = addresses.find((a) => !isPublicAddress(a) && !allowed.has(a));
  if (refused) throw new GuardedFetchError(`${hostname} resolves to ${refused}, which is not a public address`);
  return addresses[0]!;
}

function tooLarge(maxBytes: number): GuardedFetchError {
  return new GuardedFetchError(`the document is larger than ${maxBytes} bytes`);
}
