// JSON POST with timeout, bounded retries and typed errors, for embedding providers.

import { EmbeddingError } from './types';

export interface PostOptions {
  timeoutMs: number;
  retries: number;
  headers?: Record<string, string>;
  /** Provider name for error messages. */
  label: string;
}

const RETRY_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function postJson(url: string, body: unknown, opts: PostOptions): Promise<unknown> {
  let attempt = 0;
  for (;;) {
    let err: EmbeddingError;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(opts.headers ?? {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      const text = await res.text();
      if (res.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch (cause) {
          throw new EmbeddingError('bad_response', `${opts.label}: response from ${url} is not JSON`, { cause });
        }
      }
      const retryable = RETRY_STATUS.has(res.status);
      err = new EmbeddingError('http', `${opts.label}: ${url} answered HTTP ${res.status}: ${summarise(text)}`, { status: res.status, retryable });
      if (retryable && attempt < opts.retries) {
        const ra = Number(res.headers.get('retry-after'));
        attempt += 1;
        await sleep(Number.isFinite(ra) && ra > 0 ? Math.min(ra * 1000, 10_000) : backoff(attempt));
        continue;
      }
      throw err;
    } catch (e) {
      if (e instanceof EmbeddingError) throw e;
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        err = new EmbeddingError('timeout', `${opts.label}: no answer from ${url} within ${opts.timeoutMs} ms`, { retryable: true, cause: e });
      } else {
        const code = (e as { cause?: { code?: string } })?.cause?.code ?? (e as Error)?.message ?? String(e);
        err = new EmbeddingError('network', `${opts.label}: cannot reach ${url} (${code})`, { retryable: true, cause: e });
      }
      if (attempt < opts.retries) {
        attempt += 1;
        await sleep(backoff(attempt));
        continue;
      }
      throw err;
    }
  }
}

function backoff(attempt: number): number {
  return Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
}

function summarise(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t || '(empty body)';
}

export function toVector(value: unknown, label: string, index: number): Float32Array {
  if (!Array.isArray(value) || value.length === 0) {
    throw new EmbeddingError('bad_response', `${label}: embedding ${index} is missing or not an array`);
  }
  const v = new Float32Array(value.length);
  for (let i = 0; i < value.length; i += 1) {
    const x = value[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new EmbeddingError('bad_response', `${label}: embedding ${index} has a non-numeric value`);
    v[i] = x;
  }
  return v;
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
