import { z } from 'zod';
import { ERROR_STATUS, ErrorEnvelope } from './errors';
import type { RouteDef } from './route';

type JsonSchema = Record<string, unknown>;

function schemaOf(type: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(type, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  return rest;
}

/** The OpenAPI 3.1 document, derived from the route table and nothing else. */
export function buildOpenApi(routes: Record<string, RouteDef>, version: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const def of Object.values(routes)) {
    const codes = Array.from(new Set(['invalid_request', 'payload_too_large', 'internal', ...def.errors]));
    const errorResponses: Record<string, JsonSchema> = {};
    for (const code of codes) {
      const status = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]);
      const prev = (errorResponses[status]?.description as string | undefined)?.split(', ') ?? [];
      errorResponses[status] = {
        description: [...prev, code].join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
    const operation = (path: string): JsonSchema => ({
      operationId: path === def.path ? def.name : `${def.name}@${path}`,
      summary: def.summary,
      ...(path === def.path ? {} : { description: `Alias of ${def.path}, kept for existing clients.` }),
      tags: [def.name.split('.')[0]],
      ...(def.method === 'POST'
        ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(def.input, 'input') } } } }
        : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: schemaOf(def.output, 'output') } } },
        ...errorResponses,
      },
      'x-lore-scoped': def.scoped,
    });
    for (const path of [def.path, ...def.aliases]) {
      paths[path] = { [def.method.toLowerCase()]: operation(path) };
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
