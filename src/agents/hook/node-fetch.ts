/**
 * The hook's HTTP client: node:http, not the global fetch. fetch is undici, loaded on first use
 * with its web streams and diagnostics channels: 50–200 ms of a hook's one-second budget on a
 * busy machine (measured with --cpu-prof; docs/benchmarks.md, "Agents"), for one small JSON
 * request. This does what the SDK transport needs of a Response (ok, status, headers.get,
 * text) and honours the abort signal.
 */
export const nodeFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const http = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<Response>((resolve, reject) => {
    const req = http.request(url, { method: init?.method ?? 'GET', headers: (init?.headers ?? {}) as Record<string, string>, signal: init?.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          headers: {
            get: (name: string) => {
              const v = res.headers[name.toLowerCase()];
              return Array.isArray(v) ? v.join(', ') : (v ?? null);
            },
          },
          text: async () => body,
        } as unknown as Response);
      });
    });
    req.once('error', reject);
    req.end(typeof init?.body === 'string' ? init.body : undefined);
  });
}) as typeof fetch;
