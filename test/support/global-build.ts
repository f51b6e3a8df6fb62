/**
 * Vitest global setup: compiles the service into dist/ (bin/build.js) once per run, so the tests
 * that start `crm-enrich serve` as a process of its own run the same compiled code as `npm start`
 * and the container image, and a build that does not run fails the suite.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  await promisify(execFile)(process.execPath, ['bin/build.js'], { cwd: root });
}
