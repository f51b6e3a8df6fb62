/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client whose id is an HTTPS URL is described by the JSON document at that URL. The document is
 * fetched through the SSRF guard (public addresses only, 5 KB, 5 s), must name its own URL as its
 * `client_id`, and passes the same checks as a registration. Documents are cached per instance, for as
 * long as their Cache-Control says within bounds, so a busy client does not cost a fetch per request;
 * a refusal is remembered briefly so a bad client id cannot make the service fetch over and over.
 */
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { guardedFetch, GuardedFetchError, type GuardedFetchOptions } from './guarded-fetch.js';
import { MAX_REDIRECT_URI_LENGTH } from '../core/oauth-urls.js';
import { checkedClientMetadata } from './client-metadata.js';

const MIN_CACHE_SECONDS = 5 * 60;
const MAX_CACHE_SECONDS = 24 * 3600;
const DEFAULT_CACHE_SECONDS = 3600;
const REFUSAL_CACHE_SECONDS = 60;
const MAX_ENTRIES = 1000;

export interface ClientDocumentsOptions {
  /** How the document is fetched; tests inject a resolver, a CA and a loopback exemption here. */
  fetch?: GuardedFetchOptions;
  /** The clock, so a test can let a cached document go stale. */
  now?: () => number;
}

/** A client id that names a metadata document rather than a registration: an https URL. */
export function isClientDocumentUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

type Entry = { client: OAuthClientInformationFull; until: number } | { refusal: string; until: number };

export class ClientDocuments {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();
  private readonly now: () => number;

  constructor(private readonly options: ClientDocumentsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** The client the document at `url` describes; InvalidClientError saying why when it cannot be used. */
  async client(url: string): Promise<OAuthClientInformationFull> {
    let entry = this.cache.get(url);
    if (!entry || entry.until <= this.now()) entry = await this.load(url);
    if ('refusal' in entry) {
      throw new InvalidClientError(
        `client_id: the client's metadata document at ${url.slice(0, 200)} cannot be used: ${entry.refusal}`,
      );
    }
    return entry.client;
  }

  private load(url: string): Promise<Entry> {
    const running = this.pending.get(url);
    if (running) return running;
    const loading = this.fetchAndCheck(url).finally(() => this.pending.delete(url));
    this.pending.set(url, loading);
    return loading;
  }

  private async fetchAndCheck(url: string): Promise<Entry> {
    let entry: Entry;
    try {
      const urlProblem = clientIdUrlProblem(url);
      if (urlProblem) throw new GuardedFetchError(urlProblem);
      const fetched = await guardedFetch(url, this.options.fetch);
      entry = {
        client: documentClient(url, fetched.body),
        until: this.now() + cacheSeconds(fetched.cacheControl) * 1000,
      };
    } catch (error) {
      if (!(error instanceof GuardedFetchError || error instanceof DocumentError)) throw error;
      entry = { refusal: error.message, until: this.now() + REFUSAL_CACHE_SECONDS * 1000 };
    }
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.delete(url);
    this.cache.set(url, entry);
    return entry;
  }
}

class DocumentError extends Error {
  readonly code = 'client_document_invalid';
}

/** The draft's rules for a client id URL: https, a path, no dot segments, no fragment, no credentials. */
function clientIdUrlProblem(url: string): string | undefined {
  if (url.length > MAX_REDIRECT_URI_LENGTH) return `a client id URL has at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URL.canParse(url) || url.includes('#')) return 'expected an https URL without a fragment';
  const parsed = new URL(url);
  if (parsed.username || parsed.password) return 'a client id URL must not carry a user name or password';
  if (parsed.pathname === '/') return 'a client id URL must have a path';
  // The parsed URL has its dot segments resolved already, so the raw text is what is checked.
  const afterScheme = url.slice('https://'.length);
  const rawPath = afterScheme.slice(afterScheme.indexOf('/')).split('?')[0]!;
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e{1,2}$/i.test(segment))) {
    return 'a client id URL must not have . or .. path segments';
  }
  return undefined;
}

function documentClient(url: string, body: string): OAuthClientInformationFull {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new DocumentError('the document is not JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new DocumentError('the document is not a JSON object');
  const doc = json as Record<string, unknown>;
  if (doc.client_id !== url) throw new DocumentError('its client_id must be exactly the URL it is served from');
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) {
    throw new DocumentError('a metadata document must not carry a client secret');
  }
  const method = doc.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new DocumentError('token_endpoint_auth_method: this server takes public clients only ("none", with PKCE)');
  }
  if (typeof doc.client_name !== 'string' || !doc.client_name.trim()) throw new DocumentError('client_name: required');
  const parsed = OAuthClientMetadataSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DocumentError(`${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'not valid client metadata'}`);
  }
  try {
    return { client_id: url, ...checkedClientMetadata(parsed.data) };
  } catch (error) {
    throw new DocumentError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * max-age within [5 minutes, 24 hours]; no-store and no-cache
 * get the minimum, since every token check reads the client.
 */
function cacheSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(directives)) return MIN_CACHE_SECONDS;
  const maxAge = /\bmax-age=(\d+)/.exec(directives)?.[1];
  const seconds = maxAge === undefined ? DEFAULT_CACHE_SECONDS : Number(maxAge);
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds));
}
