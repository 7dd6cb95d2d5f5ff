import { ApiError, TransportError } from './errors';
import type { ErrorCode } from '../contract/errors';

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  /** Merged into every request body that does not set them (tenant_id, scope, actor). */
  defaults: Record<string, unknown>;
  fetch?: typeof fetch;
}

// biome-ignore lint/suspicious/noExplicitAny: each generated method (api.gen.ts) gives the answer its route's output type
export type Caller = (method: 'GET' | 'POST', path: string, body: unknown) => Promise<any>;

export function createCaller(opts: TransportOptions): Caller {
  const doFetch = opts.fetch ?? fetch;
  const base = opts.baseUrl.replace(/\/+$/, '');
  return async (method, path, body) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    let url = `${base}${path}`;
    let payload: string | undefined;
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify({ ...opts.defaults, ...(body as object | undefined) });
    } else if (body && Object.keys(body as object).length > 0) {
      url += `?${new URLSearchParams(body as Record<string, string>)}`;
    }
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(opts.timeoutMs) });
    } catch (err) {
      throw new TransportError(`${method} ${path} failed: ${(err as Error).message}`, err);
    }
    const text = await res.text().catch((err) => {
      throw new TransportError(`${method} ${path}: reading the response failed`, err);
    });
    let json: { error?: { code?: ErrorCode; message?: unknown; details?: Record<string, unknown>; retryable?: unknown }; request_id?: string } | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch (err) {
      throw new TransportError(`${method} ${path}: response is not JSON (status ${res.status})`, err);
    }
    if (res.ok) return json;
    const e = json?.error;
    if (e && typeof e.code === 'string') {
      throw new ApiError(res.status, e.code, String(e.message ?? ''), e.details ?? {}, Boolean(e.retryable), json?.request_id ?? res.headers.get('x-request-id'));
    }
    throw new TransportError(`${method} ${path}: HTTP ${res.status} without an error envelope`);
  };
}
