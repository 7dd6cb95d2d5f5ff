import type { Log } from '../log';

/** Prints "still building (45 s)…" every interval so a long first start never looks hung. */
export function progressTicker(log: Log, what: string, intervalMs = 15_000): () => void {
  const started = Date.now();
  const timer = setInterval(() => {
    log.info(`${what}: still working (${Math.round((Date.now() - started) / 1000)} s)…`);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
