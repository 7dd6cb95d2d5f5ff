/**
 * Span and attribute names Lore emits, from the OpenTelemetry semantic conventions: HTTP server
 * spans (stable), database client spans (stable `db.*` names, semconv 1.26+) and the GenAI memory
 * spans (`gen_ai.memory.*`, development status in the GenAI conventions). Names only: no OTel
 * import here, so the HTTP layer can use the route table below with tracing off.
 */

export const ATTR = {
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlPath: 'url.path',
  urlScheme: 'url.scheme',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  protocolVersion: 'network.protocol.version',
  userAgent: 'user_agent.original',
  errorType: 'error.type',
  dbSystem: 'db.system.name',
  dbNamespace: 'db.namespace',
  dbCollection: 'db.collection.name',
  dbOperation: 'db.operation.name',
  genAiOperation: 'gen_ai.operation.name',
  memoryStore: 'gen_ai.memory.store.id',
  memoryRecordId: 'gen_ai.memory.record.id',
  memoryRecordCount: 'gen_ai.memory.record.count',
  // Lore's own (no convention covers them): which tenant and scope, which error code.
  tenant: 'lore.tenant_id',
  scope: 'lore.scope',
  errorCode: 'lore.error.code',
} as const;

export type MemoryOperation = 'search_memory' | 'upsert_memory' | 'update_memory';

interface MemoryRoute {
  operation: MemoryOperation;
  /** How many memory records the answer holds (gen_ai.memory.record.count). */
  count: (result: Record<string, unknown>) => number | undefined;
  /** The one record the operation is about, when it is about one (gen_ai.memory.record.id). */
  recordId?: (result: Record<string, unknown>) => string | undefined;
}

const lengthOf = (key: string) => (r: Record<string, unknown>) => (Array.isArray(r[key]) ? (r[key] as unknown[]).length : undefined);

/**
 * The routes that are memory operations in the GenAI sense. The memory store is the tenant and
 * scope (`<tenant>/<scope>`); a record is a memory node. Writes are upserts (a client_id may
 * create or supersede, the caller does not choose); lifecycle changes of known nodes are updates.
 */
export const MEMORY_ROUTES: Readonly<Record<string, MemoryRoute>> = {
  'memory.recallText': { operation: 'search_memory', count: lengthOf('results') },
  'memory.find': { operation: 'search_memory', count: lengthOf('nodes') },
  'memory.resolve': { operation: 'search_memory', count: () => 1, recordId: (r) => (r.node as { id?: string } | undefined)?.id },
  'memory.write': { operation: 'upsert_memory', count: lengthOf('nodes') },
  'memory.archiveRehydrate': { operation: 'update_memory', count: lengthOf('nodes') },
  'memory.nodesActivate': { operation: 'update_memory', count: lengthOf('nodes') },
  'memory.nodesPin': { operation: 'update_memory', count: lengthOf('nodes') },
};
