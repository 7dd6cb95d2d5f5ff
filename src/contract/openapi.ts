import { z } from 'zod';
import { ERROR_STATUS, ErrorEnvelope } from './errors';
import { hasClosedObject } from './keys';
import { pathsOf, type RouteDef } from './route';

type JsonSchema = Record<string, unknown>;

function schemaOf(type: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(type, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  return rest;
}

/**
 * The codes a route can answer: those every route can (bad input, a body over the limit, a bug, a
 * Host or Origin the HTTP layer refuses, a body that is not JSON, headers over the limit, a request
 * not received in time), its own, and validation_failed
 * when its input has a closed object (an unknown key there is refused).
 */
export function errorCodesOf(def: RouteDef): string[] {
  return Array.from(
    new Set([
      'invalid_request',
      'payload_too_large',
      'internal',
      // Every request: the HTTP layer's Host and Origin checks (src/http/request-guard.ts); a body must be JSON;
      // a request line and headers over Node's limit, or not received in time (src/http/drain.ts).
      'host_not_allowed',
      'origin_not_allowed',
      'headers_too_large',
      'request_timeout',
      ...(def.method === 'POST' ? ['unsupported_media_type'] : []),
      ...def.errors,
      ...(hasClosedObject(def.input) ? ['validation_failed'] : []),
    ]),
  );
}

/** Fastify's `:name` path segments in OpenAPI's `{name}` form. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The OpenAPI 3.1 document, derived from the route table and nothing else. */
export function buildOpenApi(routes: Record<string, RouteDef>, version: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const def of Object.values(routes)) {
    const codes = errorCodesOf(def);
    const errorResponses: Record<string, JsonSchema> = {};
    for (const code of codes) {
      const status = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]);
      const prev = (errorResponses[status]?.description as string | undefined)?.split(', ') ?? [];
      errorResponses[status] = {
        description: [...prev, code].join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
    const operation = (method: 'GET' | 'POST', path: string): JsonSchema => {
      const canonical = path === def.path && method === def.method;
      const params = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
      return {
        operationId: canonical ? def.name : `${def.name}@${method} ${path}`,
        summary: def.summary,
        ...(canonical
          ? {}
          : {
              description:
                `Alias of ${def.method} ${def.path}, kept for existing clients.` +
                (method === 'GET' && def.method === 'POST' ? ' The request fields are query parameters (and path segments).' : ''),
            }),
        tags: [def.name.split('.')[0]],
        ...(params.length > 0 ? { parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) } : {}),
        ...(method === 'POST' ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(def.input, 'input') } } } } : {}),
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: schemaOf(def.output, 'output') } } },
          ...errorResponses,
        },
        'x-lore-scoped': def.scoped,
      };
    };
    for (const { method, path } of pathsOf(def)) {
      const key = openApiPath(path);
      paths[key] = { ...(paths[key] ?? {}), [method.toLowerCase()]: operation(method, path) };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lore',
      version,
      description: 'Local-first continuity runtime for AI agents. Every route is POST with a JSON body unless marked GET.',
    },
    servers: [{ url: 'http://127.0.0.1:3001' }],
    paths,
    components: { schemas: { ErrorEnvelope: schemaOf(ErrorEnvelope, 'output') } },
  };
}
