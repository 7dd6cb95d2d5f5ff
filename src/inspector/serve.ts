import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The inspector (docs/inspector.md): a browser UI served by the API at /inspector. Its files are
 * plain ES modules, CSS and one HTML page written by hand under ./static: no build step, no CDN,
 * nothing fetched from anywhere but this API. They hold no data, so they are served without a
 * key; every call they make goes to the /v1 routes with the key the user types in (kept in the
 * tab's sessionStorage), and is authorised like any other client's.
 */

export const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Only this API, no inline script, no framing: the page shows memory text, which must never run. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Every file under dir, by its path relative to dir with '/' separators. Read once: they are small. */
function loadAssets(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const type = TYPES[extname(name)];
        if (type) out.set(relative(dir, p).split(sep).join('/'), { body: readFileSync(p), type });
      }
    }
  };
  walk(dir);
  return out;
}

export function registerInspector(app: FastifyInstance, dir = STATIC_DIR): void {
  const assets = loadAssets(dir);
  const send = (reply: FastifyReply, asset: Asset) => reply.headers(SECURITY_HEADERS).type(asset.type).send(asset.body);
  const index = assets.get('index.html');
  if (!index) throw new Error(`inspector: ${dir}index.html is missing`);

  app.get('/inspector', async (_req, reply) => reply.redirect('/inspector/'));
  app.get('/inspector/', async (_req, reply) => send(reply, index));
  // Looked up in the table loaded above, never on disk: a path outside it is a 404.
  app.get('/inspector/*', async (req, reply) => {
    const path = (req.params as { '*': string })['*'];
    const asset = assets.get(path);
    if (!asset) return reply.callNotFound();
    return send(reply, asset);
  });
}
