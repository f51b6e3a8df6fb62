/**
 * Two processes can open one PGlite directory at once without any error and corrupt it, so the
 * store takes a lock file beside it. A lock left by a process that no longer runs is taken over.
 */
import { dirname } from 'node:path';
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { StoreError } from './errors.js';

export interface DirectoryLock {
  readonly path: string;
  release(): void;
}

export function lockDirectory(lockPath: string): DirectoryLock {
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { path: lockPath, release: () => releaseLock(lockPath) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(lockPath);
    if (holder !== undefined && isAlive(holder)) {
      const who = holder === process.pid ? 'this process (opened twice)' : `process ${holder}`;
      throw new StoreError(
        'store_locked',
        `The embedded database at ${lockPath.replace(/\.lock$/, '')} is already open in ${who}. ` +
          'Stop the other crm-enrich process, or set DATABASE_URL to a Postgres server so several processes ' +
          'can share it.',
        { lockPath, pid: holder },
      );
    }
    try {
      unlinkSync(lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new StoreError(
    'store_locked',
    `Could not take the lock file ${lockPath}; remove it if no crm-enrich process is running.`,
    { lockPath },
  );
}

/** The live process other than this one that holds the lock, if any: a check before starting anything. */
export function otherHolder(lockPath: string): number | undefined {
  const holder = readHolder(lockPath);
  return holder !== undefined && holder !== process.pid && isAlive(holder) ? holder : undefined;
}

function readHolder(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it still holds the directory.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseLock(lockPath: string): void {
  if (readHolder(lockPath) !== process.pid) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
