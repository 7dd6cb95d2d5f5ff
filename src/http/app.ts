import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LoreError } from '../contract/errors';
import type { CallContext } from '../contract/handlers';
import { fieldType, topLevelKeys } from '../contract/keys';
import { pathsOf, type RouteDef } from '../contract/route';
import { authenticate, authorizeTenant } from './auth';
import type { ApiKey } from '../model/api-key';
import { checkBody } from './body-checks';
import { answerClientError, discardRest } from './drain';
import { requestGuard, type RequestGuardOptions } from './request-guard';
import { envelope, fromFastifyError, fromZodError, internalError } from './errors';
import type { Metrics } from './metrics';
import type { HttpTracing, RequestSpan } from '../telemetry/types';

type AnyHandler = (input: any, ctx: CallContext) => Promise<Record<string, unknown>>;

export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface AppOptions {
  routes: Record<string, RouteDef>;
  handlers: Record<string, AnyHandler>;
  bodyLimit: number;
  apiKeys: readonly ApiKey[];
  /** Check every response against its output schema (on in tests; a mismatch is a 500). */
  validateResponses: boolean;
  metrics: Metrics;
  /** Served at GET /openapi.json. */
  openapi: () => unknown;
  log: Logger;
  /** Server spans for every request when tracing is on (src/telemetry); absent: no tracing code runs. */
  tracing?: HttpTracing | null;
  /** The Host, Origin and media type checks every request passes first (src/http/request-guard.ts). */
  guard: RequestGuardOptions;
}

/**
 * A signal aborted when the client goes away before its response is finished. It watches the
 * response, not the request: a request emits 'close' as soon as its body has been read, long
 * before the handler answers.
 */
function clientGone(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  const res = reply.raw;
  if (res.writableFinished) return abort.signal;
  if (res.destroyed || res.socket?.destroyed) {
    abort.abort();
    return abort.signal;
  }
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort.signal;
}

/** Query strings are text: numbers, booleans and lists are read as the field expects them. */
function fromQuery(def: RouteDef, query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(query)) {
    const type = fieldType(def.input, key);
    const one = Array.isArray(value) ? value[value.length - 1] : value;
    if (type === 'array') out[key] = Array.isArray(value) ? value : [value];
    else if (type === 'number' && typeof one === 'string' && /^-?\d+(\.\d+)?$/.test(one)) out[key] = Number(one);
    else if (type === 'boolean' && (one === 'true' || one === 'false')) out[key] = one === 'true';
    else out[key] = one;
  }
  return out;
}

/** Top-level request fields a route does not know: accepted, ignored, and said so in `warnings`. */
function unknownFieldWarnings(known: Set<string> | null, raw: Record<string, unknown>, where: string) {
  if (!known) return [];
  return Object.keys(raw)
    .filter((k) => !known.has(k))
    .map((field) => ({ code: 'unknown_field', field, message: `'${field}' is not a field of ${where}; it was ignored` }));
}

/**
 * Builds the Fastify app from the contract's route table. It never listens: main.ts does, tests
 * use inject(). Every non-2xx answer is the contract's envelope: body parsing, unknown routes,
 * validation, domain errors and bugs alike.
 */
export function buildApp(opts: AppOptions): FastifyInstance {
  // Tracing's server span of each request (filled only when tracing is on).
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  const fail = (reply: FastifyReply, req: FastifyRequest, err: LoreError) => {
    spans.get(req)?.failed(err.code);
    if (err.code === 'overloaded') reply.header('retry-after', String(err.details.retry_after_s ?? 1));
    // Set here too: the router's own refusals (frameworkErrors) are answered before any hook runs.
    reply.header('x-request-id', req.id);
    return reply
      .code(err.status)
      .type('application/json')
      .send(envelope(err, String(req.id)));
  };

  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    // Path segments (ids in alias paths) up to this long reach validation, which names the limit.
    routerOptions: { maxParamLength: 1024 },
    // The router's own refusals (a malformed URL, a path segment past maxParamLength) in the envelope too.
    frameworkErrors: (err, req, reply) => fail(reply, req, new LoreError('invalid_request', `the request path is not acceptable: ${err.message}`, { path: req.url.split('?')[0] })),
    logger: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // What Node's HTTP parser refuses (headers over its limit, malformed HTTP, a timeout): the envelope, then a clean close.
    clientErrorHandler: answerClientError,
    // Unknown routes and malformed bodies must answer fast, never hang.
    connectionTimeout: 60_000,
  });

  // An empty POST body is an empty object (so validation can name the missing fields).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new LoreError('invalid_request', `request body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });

  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-request-id', req.id);
    // An answer given before the body was read (too large, refused by the guard, an unknown route):
    // the rest of the body is read first, so that closing the connection cannot reset it under a
    // client still sending (src/http/drain.ts). inject()'s requests have no `complete`: nothing to drain.
    if (req.raw.complete === false && !(await discardRest(req.raw))) reply.header('connection', 'close');
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    const routeLabel = req.routeOptions?.url ?? 'unmatched';
    opts.metrics.observeRequest(req.method, routeLabel, reply.statusCode, reply.elapsedTime / 1000);
  });

  // Tracing (off unless configured): a server span per request, ended with the route and status.
  const tracing = opts.tracing ?? null;
  if (tracing) {
    app.addHook('onRequest', async (req) => {
      const addr = req.socket?.localAddress ?? null;
      spans.set(
        req,
        tracing.start({
          method: req.method,
          path: req.url.split('?')[0]!,
          headers: req.headers,
          scheme: req.protocol === 'https' ? 'https' : 'http',
          serverAddress: addr,
          serverPort: req.socket?.localPort ?? null,
          clientAddress: req.ip ?? null,
          protocolVersion: req.raw.httpVersion,
        }),
      );
    });
    app.addHook('onResponse', async (req, reply) => {
      spans.get(req)?.end(req.routeOptions?.url ?? null, reply.statusCode);
      spans.delete(req);
    });
    app.addHook('onRequestAbort', async (req) => {
      spans.get(req)?.end(req.routeOptions?.url ?? null, 499);
      spans.delete(req);
    });
  }

  // Before any route is registered, so it applies to every one: contract routes, /mcp, the hook
  // route, the inspector, /metrics, /openapi.json and unknown paths alike.
  const guard = requestGuard(opts.guard);
  app.addHook('onRequest', async (req, reply) => {
    const refused = guard(req.raw);
    if (refused) return fail(reply, req, refused);
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof LoreError) return fail(reply, req, err);
    const mapped = fromFastifyError(err, opts.bodyLimit);
    if (mapped) return fail(reply, req, mapped);
    opts.log.error({ err, request_id: req.id, url: req.url }, 'unhandled error');
    return fail(reply, req, internalError());
  });

  app.setNotFoundHandler((req, reply) =>
    fail(reply, req, new LoreError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`, { method: req.method, path: req.url.split('?')[0] })),
  );

  app.get('/openapi.json', async () => opts.openapi());
  app.get('/metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(opts.metrics.render()));

  for (const [name, def] of Object.entries(opts.routes)) {
    const handler = opts.handlers[name];
    if (!handler) throw new Error(`contract route '${name}' has no handler`);
    const known = topLevelKeys(def.input);
    const serve = async (req: FastifyRequest, reply: FastifyReply) => {
      const key = authenticate(opts.apiKeys, req.headers.authorization);
      const params = (req.params ?? {}) as Record<string, string>;
      let raw: unknown;
      if (req.method === 'GET') raw = { ...fromQuery(def, (req.query ?? {}) as Record<string, unknown>), ...params };
      else {
        // An empty body is an empty object (validation names what is missing); JSON null is not an object.
        raw = req.body === undefined ? {} : req.body;
        if (Object.keys(params).length > 0 && typeof raw === 'object' && raw !== null && !Array.isArray(raw)) raw = { ...raw, ...params };
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw new LoreError('invalid_request', `request body must be a JSON object, not ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`);
      }
      const bad = checkBody(raw);
      if (bad) throw bad;
      const parsed = def.input.safeParse(raw);
      if (!parsed.success) throw fromZodError(parsed.error, def.input);
      const input = parsed.data as Record<string, unknown>;
      const identity = {
        tenant_id: typeof input.tenant_id === 'string' ? input.tenant_id : 'default',
        scope: typeof input.scope === 'string' ? input.scope : 'default',
      };
      if (def.scoped) authorizeTenant(key, identity.tenant_id);
      let signal: AbortSignal | null = null;
      const ctx: CallContext = {
        ...identity,
        actor: typeof input.actor === 'string' ? input.actor : 'local-user',
        requestId: String(req.id),
        keyTenant: key?.tenant ?? null,
        // Made on first use: most handlers never look, and a controller per request costs.
        get signal() {
          return (signal ??= clientGone(reply));
        },
      };
      const span = spans.get(req);
      const result = span ? await span.runHandler(name, identity, () => handler(input, ctx)) : await handler(input, ctx);
      const body: Record<string, unknown> = def.scoped ? { tenant_id: identity.tenant_id, scope: identity.scope, ...result } : { ...result };
      const warnings = unknownFieldWarnings(known, raw as Record<string, unknown>, `${req.method} ${req.routeOptions?.url ?? def.path}`);
      if (warnings.length > 0) body.warnings = [...(Array.isArray(body.warnings) ? body.warnings : []), ...warnings];
      if (opts.validateResponses) {
        const checked = def.output.safeParse(body);
        if (!checked.success) {
          opts.log.error({ route: def.path, issues: checked.error.issues.slice(0, 10), request_id: req.id }, 'response does not match its contract');
          throw internalError();
        }
      }
      return reply.code(200).send(body);
    };
    for (const { method, path } of pathsOf(def)) {
      app.route({ method, url: path, handler: serve });
    }
  }
  return app;
}
