/**
 * A certificate authority made for one test run with the system's openssl, and a server certificate
 * it signed for a host name: enough for an HTTPS server on loopback that a client trusts only when
 * given this CA explicitly. Nothing is written outside a temporary directory, removed at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  ca: string;
  key: string;
  cert: string;
}

export function makeTestCertificates(hostname: string): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=crm-enrich test CA',
    );
    openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', `/CN=${hostname}`);
    writeFileSync(at('ext.cnf'), `subjectAltName=DNS:${hostname}\n`);
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.crt'),
      '-days',
      '2',
      '-extfile',
      at('ext.cnf'),
    );
    return {
      ca: readFileSync(at('ca.crt'), 'utf8'),
      key: readFileSync(at('server.key'), 'utf8'),
      cert: readFileSync(at('server.crt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
