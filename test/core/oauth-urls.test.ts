/**
 * The redirect URI allow-list: what an attacker registered against the old deny-list is refused, and
 * what real clients use (https, loopback http on any port, reverse-domain native schemes) still passes.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REDIRECT_URI_LENGTH, redirectUriKey, redirectUriProblem } from '../../src/core/oauth-urls.js';

describe('redirectUriProblem', () => {
  it.each([
    'https://app.example.com/oauth/callback',
    'https://evil.example/landing',
    'http://127.0.0.1:53612/callback',
    'http://localhost/cb',
    'http://[::1]:8080/cb',
    'com.example.app:/oauth2redirect',
    'com.example.app://callback',
  ])('allows %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['ms-msdt:/id PCWDiagnostic', /ms-msdt: scheme is not allowed/],
    ['search-ms:query=x&crumb=location:\\\\evil.example\\share', /search-ms: scheme is not allowed/],
    ['chrome://settings', /chrome: scheme is not allowed/],
    ['view-source:https://evil.example/', /view-source: scheme is not allowed/],
    ['x-javascript:alert(1)', /x-javascript: scheme is not allowed/],
    ['javascript:alert(1)', /javascript: scheme is not allowed/],
    ['vscode://callback', /vscode: scheme is not allowed/],
    ['data:text/html,hi', /data: scheme is not allowed/],
    ['https://evil.example/cb#', /fragment/],
    ['https://evil.example/cb#x', /fragment/],
    ['http://evil.example/cb', /loopback/],
    ['http://127.0.0.1.evil.example/cb', /loopback/],
    ['https://user:pass@evil.example/cb', /user name or password/],
    ['/relative/callback', /absolute URI/],
  ])('refuses %s', (uri, reason) => {
    expect(redirectUriProblem(uri)).toMatch(reason);
  });

  it('refuses a URI over the length cap, naming the cap', () => {
    const long = `https://app.example.com/${'a'.repeat(MAX_REDIRECT_URI_LENGTH)}`;
    expect(redirectUriProblem(long)).toBe(`at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  });
});

describe('redirectUriKey', () => {
  it('drops the port of a loopback URI only', () => {
    expect(redirectUriKey('http://127.0.0.1:53612/callback?x=1')).toBe('http://127.0.0.1/callback?x=1');
    expect(redirectUriKey('http://127.0.0.1:49152/callback?x=1')).toBe('http://127.0.0.1/callback?x=1');
    expect(redirectUriKey('https://app.example.com:8443/cb')).toBe('https://app.example.com:8443/cb');
  });
});
