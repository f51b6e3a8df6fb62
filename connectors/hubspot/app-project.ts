/**
 * Writes the HubSpot developer-platform project (deploy/hubspot-app/) with the service's public URL in
 * every place HubSpot calls or lets the card call: the webhook target, the workflow action's URL, the
 * app's permitted fetch URL and the card's service URL. The template carries TEMPLATE_URL in those
 * places, so it is itself a project HubSpot's parser reads, and rendering is one substitution.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src/core/errors.js';

export const TEMPLATE_DIR = fileURLToPath(new URL('../../deploy/hubspot-app/', import.meta.url));
/** A reserved name (RFC 2606) that can never be a real deployment, so a forgotten one fails loudly. */
export const TEMPLATE_URL = 'https://crm-enrich.invalid';

export class HubspotAppProjectError extends AppError {
  constructor(
    code: 'invalid_public_url' | 'out_dir_not_empty' | 'template_missing',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, 'config', details);
  }
}

/**
 * The origin HubSpot will call. HubSpot sends webhooks and workflow-action requests, and proxies the
 * card's hubspot.fetch calls, only to https URLs, and an uploaded project cannot name a local address
 * (only `hs project dev` reaches a local server), so plain http, even to 127.0.0.1, is refused. The URL
 * is the origin alone: webhook signatures cover the full URL, which the service rebuilds from PUBLIC_URL
 * and the path it received, so a path prefix would break every signature.
 */
export function checkPublicUrl(raw: string): string {
  const fail = (why: string) =>
    new HubspotAppProjectError(
      'invalid_public_url',
      `--public-url ${why}; give the https origin HubSpot calls, e.g. https://enrich.example.com.`,
      { field: 'publicUrl' },
    );
  if (!URL.canParse(raw)) throw fail('is not an absolute URL');
  const url = new URL(raw);
  if (url.protocol !== 'https:') {
    throw fail(
      'must use https: HubSpot calls webhooks, workflow actions and card fetches over https only, ' +
        'and an uploaded app cannot reach http://127.0.0.1 or another local address',
    );
  }
  if (url.username || url.password) throw fail('must not carry credentials');
  if (url.pathname !== '/' || url.search || url.hash) {
    throw fail('must be an origin without a path, query or fragment (serve the service at the root of its host)');
  }
  if (url.origin === TEMPLATE_URL) throw fail("is the template's placeholder");
  return url.origin;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && !join(e.parentPath, e.name).split('/').includes('node_modules'))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
}

export interface RenderOptions {
  publicUrl: string;
  outDir: string;
  templateDir?: string;
}

/** Writes the project into outDir (which must be empty or missing) and returns the files written. */
export async function renderHubspotAppProject(options: RenderOptions): Promise<string[]> {
  const origin = checkPublicUrl(options.publicUrl);
  const templateDir = options.templateDir ?? TEMPLATE_DIR;
  if (!(await isEmptyOrMissing(options.outDir))) {
    throw new HubspotAppProjectError(
      'out_dir_not_empty',
      `--out ${options.outDir} is not empty; give a new or empty directory so no edited project is overwritten.`,
      { field: 'outDir' },
    );
  }
  const files = await listFiles(templateDir).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
    throw new HubspotAppProjectError(
      'template_missing',
      `The HubSpot app template ${templateDir} is missing; run crm-enrich from a checkout or the npm package, ` +
        'which carry deploy/hubspot-app/.',
    );
  });
  for (const file of files) {
    const text = await readFile(join(templateDir, file), 'utf8');
    const target = join(options.outDir, file);
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, text.replaceAll(TEMPLATE_URL, origin));
  }
  return files;
}
