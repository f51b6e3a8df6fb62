/**
 * The conformance suite's authorization-code-grant scenario prints an authorization URL for a person to
 * open in a browser, then waits for the redirect on its own loopback callback. Piped the suite's
 * output, this plays that person: it opens the consent page, allows the request with the admin token
 * (as the page's form does), and follows the redirect to the suite's callback. Every line is echoed.
 *
 * Usage: npx conformance authorization ... | npx tsx test/mcp/conformance/consent-driver.ts <admin token file>
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { answerConsent } from '../oauth-helpers.js';

const tokenFile = process.argv[2];
if (!tokenFile) {
  console.error('usage: consent-driver.ts <admin token file>');
  process.exit(2);
}
const adminToken = readFileSync(tokenFile, 'utf8').trim();

for await (const line of createInterface({ input: process.stdin })) {
  console.log(line);
  const url = line.trim();
  if (!/^https?:\/\/\S+\/authorize\?/.test(url)) continue;
  const answer = await answerConsent(new URL(url), 'allow', adminToken);
  if (!answer.location) {
    console.log(`consent-driver: the consent answered ${answer.status} without a redirect`);
    continue;
  }
  const callback = await fetch(answer.location, { redirect: 'manual' });
  console.log(`consent-driver: allowed; the callback answered ${callback.status}`);
}
