import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalServiceError } from './errors';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Claims the data dir for this process (a pid file). A second Lore on the same data dir gets a
 * clear message instead of two servers fighting over one database file; a pid file left by a
 * killed Lore is taken over.
 */
export function claimDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, 'lore.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new LocalServiceError(`another Lore (pid ${pid}) is running with data dir ${dataDir}`, 'stop it first, or set LORE_DATA_DIR to another directory');
    }
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  return () => {
    try {
      if (readFileSync(pidFile, 'utf8').trim() === String(process.pid)) rmSync(pidFile);
    } catch {
      /* already gone */
    }
  };
}
