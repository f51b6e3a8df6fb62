/**
 * The consent page in a real Chromium, as a developer tool's sign-in goes: the SDK's client registers
 * for the developer-tool callback port 53612 and listens on another loopback port (any port must be
 * accepted), the admin reads who asks for what, a wrong token is refused on the page, Allow sends the
 * browser back to the loopback listener with a code (the page's CSP must let that redirect through)
 * and Deny with access_denied once a sign-in to that address was allowed (before that, a page says the
 * request was denied). The code then signs the SDK's client in and a tool answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../browser/page-helpers.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, eventually } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { CALLBACK, connect, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await browserSkipReason();
if (skip) console.warn(`skipping MCP consent browser tests: ${skip}`);

describe.skipIf(skip)('MCP consent page in Chromium', () => {
  const stack = useStack({ sandboxes: { people: 200, companies: 40 } });
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let callback: Server;
  let callbackUrl: string;
  let received: URL[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    // The developer tool's loopback listener, on whatever port the system gives.
    callback = createServer((req, res) => {
      received.push(new URL(req.url ?? '/', callbackUrl));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
  });
  beforeEach(async () => {
    received = [];
    context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    problems = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) problems.push(`csp: ${message.text()}`);
    });
  });
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  async function startSignIn(name: string): Promise<MemoryOAuthClient> {
    const client = new MemoryOAuthClient({ name, redirectUrl: callbackUrl, registeredRedirects: [CALLBACK] });
    expect(await auth(client, { serverUrl: `${stack.running.url}/mcp` })).toBe('REDIRECT');
    return client;
  }

  it(
    'shows who asks for what, refuses a wrong token on the page, ' +
      'and Allow brings the code back to the loopback port',
    async () => {
      const client = await startSignIn('Browser assistant <b>&</b>');
      const response = await page.goto(client.authorizationUrl!.href);
      const csp = response!.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`form-action 'self' ${new URL(callbackUrl).origin}`);
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|script-src/);

      // The name is the client's own text, shown as text.
      await expect(page.locator('#client-name').textContent()).resolves.toBe('Browser assistant <b>&</b>');
      const scopes = await page.locator('#scopes li').allTextContents();
      expect(scopes.map((s) => s.split(':')[0])).toEqual(['read', 'write']);
      expect(scopes[1]).toContain('enrich CRM records');
      await expect(page.getByText(callbackUrl).first().isVisible()).resolves.toBe(true);
      await expect(page.locator('#first-time').textContent()).resolves.toContain(
        'No admin has allowed this client to use this address before',
      );

      await page.getByLabel('Admin token').fill('not-the-admin-token');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('alert').filter({ hasText: 'That is not the admin token' }).waitFor();
      expect(received).toEqual([]);

      await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.href.startsWith(callbackUrl));
      const back = await eventually(() => received[0], 5_000, 'the loopback listener to be called');
      expect(back.searchParams.get('state')).toBe(client.expectedState);
      const code = back.searchParams.get('code');
      expect(code).toBeTruthy();

      expect(await auth(client, { serverUrl: `${stack.running.url}/mcp`, authorizationCode: code! })).toBe(
        'AUTHORIZED',
      );
      const mcp = await connect(stack.running.url, client);
      const result = await mcp.callTool({ name: 'filter_options', arguments: { identifiers: ['seniority'] } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain('C-Suite');
      await mcp.close();
    },
  );

  it(
    'Deny shows a page to a client nobody allowed before, ' +
      'and sends a confirmed client back with access_denied and iss',
    async () => {
      const client = await startSignIn('Denied assistant');
      await page.goto(client.authorizationUrl!.href);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Denied: nothing was allowed' }).waitFor();
      expect(page.url().startsWith(stack.running.url)).toBe(true);
      expect(received).toEqual([]);

      // Once the admin has allowed a sign-in to this redirect URI, a later Deny goes back to it.
      const confirmed = new MemoryOAuthClient({
        name: 'Confirmed assistant',
        redirectUrl: callbackUrl,
        registeredRedirects: [CALLBACK],
      });
      await signIn(stack.running.url, { client: confirmed });
      confirmed.saveTokens(undefined as never);
      expect(await auth(confirmed, { serverUrl: `${stack.running.url}/mcp` })).toBe('REDIRECT');
      await page.goto(confirmed.authorizationUrl!.href);
      expect(await page.locator('#first-time').count()).toBe(0);
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL((u) => u.href.startsWith(callbackUrl));
      const back = await eventually(() => received[0], 5_000, 'the loopback listener to be called');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(confirmed.expectedState);
      expect(back.searchParams.get('iss')).toBe(stack.running.url);
      expect(back.searchParams.has('code')).toBe(false);
    },
  );

  it('cannot be framed by another page', async () => {
    const client = await startSignIn('Framed assistant');
    const framing = `<!doctype html><iframe id="f" src="${client.authorizationUrl!.href}"></iframe>`;
    await page.route('http://framing.test/', (route) => route.fulfill({ contentType: 'text/html', body: framing }));
    page.removeAllListeners('console');
    await page.goto('http://framing.test/');
    const frame = page.frames().find((f) => f.url().startsWith(stack.running.url));
    // Chromium replaces a refused frame with an error page: the consent form is never there.
    expect(frame ? await frame.locator('#admin-token').count() : 0).toBe(0);
  });
});
