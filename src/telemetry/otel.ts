import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import type { Config } from '../config';
import type { Log } from '../log';
import { setStoreTracer, type StoreCall } from '../store/tracing';
import type { HttpTracing, RequestInfo, RequestSpan, Telemetry } from './types';
import { ATTR, MEMORY_ROUTES } from './semconv';

/**
 * The OpenTelemetry SDK for Node, loaded only when tracing is on (telemetry/index.ts). The 1.x
 * SDK line, because Temporal's interceptors (1.24) build their workflow spans with it: a 2.x
 * exporter would read those spans' parent links from a field they do not set.
 */

const TRACER = 'lore';

function reportExportErrors(log: Log, url: string): void {
  let reported = false;
  setGlobalErrorHandler((err) => {
    const message = err instanceof Error ? err.message : String(err);
    // The first failure says where spans were going; the rest would repeat it every few seconds.
    if (!reported) log.warn(`tracing: spans could not be exported to ${url}: ${message} (later failures are logged at debug level)`);
    else log.debug(`tracing: export failed: ${message}`);
    reported = true;
  });
}

export function startOtel(config: Config, role: 'api' | 'worker', log: Log): Telemetry {
  const resource = new Resource({
    'service.name': config.tracing.serviceName,
    'service.version': config.version,
    'lore.role': role,
  });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracing.url, headers: { ...config.tracing.headers } }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Global: the async-hooks context manager (spans follow async work) and W3C trace context.
  provider.register();
  reportExportErrors(log, config.tracing.url);
  const tracer = trace.getTracer(TRACER, config.version);
  setStoreTracer(storeTracer(tracer));
  log.info(`tracing: spans go to ${config.tracing.url} (service ${config.tracing.serviceName})`);
  let worker: ReturnType<Telemetry['worker']> | null = null;
  return {
    http: httpTracing(tracer),
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor()],
    worker() {
      worker ??= import('./otel-worker').then((m) => m.workerTracing(processor, resource));
      return worker;
    },
    async shutdown() {
      setStoreTracer(null);
      await provider.shutdown().catch((err) => log.warn(`tracing: shutdown: ${(err as Error).message}`));
    },
  };
}

/** Runs fn as the span's body; the span ends with fn, in error if fn throws. */
async function within<T>(span: Span, fn: () => Promise<T>, onResult?: (r: T) => void): Promise<T> {
  try {
    const r = await context.with(trace.setSpan(context.active(), span), fn);
    onResult?.(r);
    return r;
  } catch (err) {
    span.setAttribute(ATTR.errorType, errorType(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
    throw err;
  } finally {
    span.end();
  }
}

/** A low-cardinality name for what failed: Lore's error code, else the exception's class. */
function errorType(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && /^[a-z_]+$/.test(code)) return code;
  return (err as Error)?.constructor?.name ?? '_OTHER';
}

/** Database client spans (semconv: `{db.operation.name} {db.collection.name}`), nothing of the query or documents. */
function storeTracer(tracer: Tracer) {
  return {
    trace<T>(call: StoreCall, fn: () => Promise<T>): Promise<T> {
      const attributes: Attributes = {
        [ATTR.dbSystem]: 'mongodb',
        [ATTR.dbNamespace]: call.database,
        [ATTR.dbCollection]: call.collection,
        [ATTR.dbOperation]: call.operation,
      };
      if (call.tenant_id !== undefined) attributes[ATTR.tenant] = call.tenant_id;
      if (call.scope !== undefined) attributes[ATTR.scope] = call.scope;
      const span = tracer.startSpan(`${call.operation} ${call.collection}`, { kind: SpanKind.CLIENT, attributes });
      return within(span, fn);
    },
  };
}

const header = (h: RequestInfo['headers'], name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** HTTP server spans (semconv: `{method} {http.route}`), continuing a caller's traceparent. */
function httpTracing(tracer: Tracer): HttpTracing {
  return {
    start(req: RequestInfo): RequestSpan {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const attributes: Attributes = {
        [ATTR.httpMethod]: req.method,
        [ATTR.urlPath]: req.path,
        [ATTR.urlScheme]: req.scheme,
        [ATTR.protocolVersion]: req.protocolVersion,
      };
      if (req.serverAddress) attributes[ATTR.serverAddress] = req.serverAddress;
      if (req.serverPort) attributes[ATTR.serverPort] = req.serverPort;
      if (req.clientAddress) attributes[ATTR.clientAddress] = req.clientAddress;
      const ua = header(req.headers, 'user-agent');
      if (ua) attributes[ATTR.userAgent] = ua.slice(0, 256);
      // The name gets the route template once it is known (end()); until then, the method alone.
      const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes }, parent);
      const ctx = trace.setSpan(parent, span);
      return {
        runHandler<T>(route: string, where: { tenant_id: string; scope: string }, fn: () => Promise<T>): Promise<T> {
          const memory = MEMORY_ROUTES[route];
          if (!memory) return context.with(ctx, fn);
          const store = `${where.tenant_id}/${where.scope}`;
          const child = tracer.startSpan(memory.operation, { kind: SpanKind.INTERNAL, attributes: { [ATTR.genAiOperation]: memory.operation, [ATTR.memoryStore]: store } }, ctx);
          return context.with(ctx, () =>
            within(child, fn, (r) => {
              const result = (r ?? {}) as Record<string, unknown>;
              const count = memory.count(result);
              if (count !== undefined) child.setAttribute(ATTR.memoryRecordCount, count);
              const id = memory.recordId?.(result);
              if (id) child.setAttribute(ATTR.memoryRecordId, id);
            }),
          );
        },
        failed(code: string) {
          span.setAttribute(ATTR.errorCode, code);
        },
        end(route: string | null, status: number) {
          if (route) {
            span.setAttribute(ATTR.httpRoute, route);
            span.updateName(`${req.method} ${route}`);
          }
          span.setAttribute(ATTR.httpStatus, status);
          // Server spans: 5xx is an error of this server; 4xx is the caller's (status left unset).
          if (status >= 500) {
            span.setAttribute(ATTR.errorType, String(status));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
  };
}
