/**
 * The store's tracing hook (docs/inspector.md, "Traces"). Off by default: `traceStore` then calls
 * the operation and nothing else (one null check). When tracing is on, src/telemetry/otel.ts
 * installs a tracer and every store call through ScopedCollection and Database.findAll becomes a
 * database client span, a child of whatever span is current (an HTTP request, an activity).
 * Nothing about the documents or the query goes into the span: only the collection, the
 * operation and the tenant and scope.
 */

export interface StoreCall {
  collection: string;
  /** The MongoDB operation (find, findOne, updateOne, bulkWrite, ...). */
  operation: string;
  database: string;
  tenant_id?: string;
  scope?: string;
}

export interface StoreTracer {
  trace<T>(call: StoreCall, fn: () => Promise<T>): Promise<T>;
}

let tracer: StoreTracer | null = null;

export function setStoreTracer(t: StoreTracer | null): void {
  tracer = t;
}

export function traceStore<T>(call: () => StoreCall, fn: () => Promise<T>): Promise<T> {
  return tracer === null ? fn() : tracer.trace(call(), fn);
}
