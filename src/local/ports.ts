import { createServer, connect } from 'node:net';
import { LocalServiceError } from './errors';

/** Resolves true when nothing listens on host:port (we could bind it ourselves). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

export async function assertPortFree(host: string, port: number, what: string, setting: string): Promise<void> {
  if (!(await isPortFree(host, port))) {
    throw new LocalServiceError(`port ${port} on ${host} (${what}) is already in use`, `stop the process using it, or set ${setting} to a free port`);
  }
}

/** Resolves when a TCP connection to host:port succeeds, rejects after timeoutMs. */
export async function waitForPort(host: string, port: number, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect({ host, port });
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
      sock.setTimeout(1000, () => {
        sock.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (!isAlive()) throw new Error(`process exited before ${host}:${port} accepted connections`);
    if (Date.now() > deadline) throw new Error(`${host}:${port} did not accept connections within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A free port chosen by the OS (tests). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen({ host, port: 0 }, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
