import { join } from 'node:path';
import type { Config } from '../config';
import type { Log } from '../log';
import type { Supervisor } from './supervisor';

/** Starts the local MongoDB wire-protocol server under the supervisor (filled in with the launcher). */
export async function startLocalMongo(_config: Config, _log: Log, _supervisor: Supervisor): Promise<{ uri: string; version: string }> {
  void join;
  throw new Error('local MongoDB launcher not wired yet');
}

/** The built launcher jar in binDir, if any (without building). */
export function findMongoLauncherJar(_binDir: string): string | null {
  return null;
}
