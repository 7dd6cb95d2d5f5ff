import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The install token: a random key in `<data dir>/api-token`, readable by its owner only (0600),
 * written by the API at its first start (docs/security.md). With LORE_REQUIRE_TOKEN=true every
 * request must present it as `Authorization: Bearer`, and the clients on this machine that share
 * the data dir — `lore mcp`, `lore hook`, the SDK — read it from there by themselves. It lives in
 * src/model because both sides use it: the server that writes it and the clients that read it
 * (node builtins only, so `lore hook` stays light).
 */

export const INSTALL_TOKEN_FILE = 'api-token';
const TOKEN = /^[A-Za-z0-9_-]{32,256}$/;

export const installTokenPath = (dataDir: string) => join(dataDir, INSTALL_TOKEN_FILE);

/** The token of the Lore that uses this data dir; null when there is none yet or it cannot be read. */
export function readInstallToken(dataDir: string): string | null {
  try {
    const text = readFileSync(installTokenPath(dataDir), 'utf8').trim();
    return TOKEN.test(text) ? text : null;
  } catch {
    return null;
  }
}

/**
 * The token a client sends to the Lore at `url` when it was given no key: the install token of
 * `dataDir`, and only to a Lore on this machine (the one that wrote it), never over the network.
 */
export function installTokenFor(url: string, dataDir: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return null;
  }
  return ['localhost', '127.0.0.1', '[::1]'].includes(hostname) ? readInstallToken(dataDir) : null;
}

/**
 * Reads the token, creating it on the first start. The file appears whole or not at all (written
 * under a temporary name, then linked into place, which fails if another process got there
 * first), and a mode looser than 0600 is narrowed. A file that holds no token is replaced.
 */
export function ensureInstallToken(dataDir: string): { token: string; created: boolean } {
  mkdirSync(dataDir, { recursive: true });
  const path = installTokenPath(dataDir);
  const existing = readInstallToken(dataDir);
  if (existing) {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return { token: existing, created: false };
  }
  const token = randomBytes(32).toString('base64url');
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = readInstallToken(dataDir);
    if (other) return { token: other, created: false };
    // There is a file, but no token in it: replace it.
    renameSync(tmp, path);
    return { token, created: true };
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // renamed into place
    }
  }
  return { token, created: true };
}
