#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so an installed package needs no build step. It needs Node 22:
// started by an older Node (the machine's, as `node bin/crm-enrich.js` or a tool that puts it first on
// PATH), it hands over to the Node 22 of the `node` package the repository installs, and says what to
// do where there is none, rather than failing later on a missing feature.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;

if (Number(process.versions.node.split('.')[0]) < MIN_MAJOR) {
  let node;
  try {
    node = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    console.error(
      `crm-enrich needs Node ${MIN_MAJOR} or later, and this is Node ${process.versions.node}. ` +
        `Install Node ${MIN_MAJOR}, ` +
        'or in the repository run it through npm (npm run cli -- <command>), which brings it.',
    );
    process.exit(1);
  }
  const args = [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const child = spawn(node, args, { stdio: 'inherit' });
  // The service stops cleanly on a signal: pass SIGTERM and SIGHUP on; Ctrl-C's SIGINT already reaches
  // the whole process group, so it is only kept from ending this process before the service has stopped.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
