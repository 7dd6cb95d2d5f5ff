import { fileURLToPath } from 'node:url';
import type { Config } from '../config';
import type { Log } from '../log';

/**
 * OpenTelemetry tracing (docs/inspector.md, "Traces"). Off unless an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT) or LORE_TRACING=on. When it is off this module
 * is all that loads: the SDK, the exporter and Temporal's interceptors are imported only by
 * ./otel.ts, and only when tracing is on (startup time and memory of a process that does not trace
 * stay as they were).
 *
 * What a trace holds: the HTTP request (server span), the memory operation it performs (gen_ai
 * memory span), the workflow it starts (Temporal's client interceptor), the workflow and its
 * activities (Temporal's workflow and activity interceptors, in the worker), and every store call
 * below any of them (database client spans). Attributes carry ids, routes, names and counts, never
 * request bodies or memory text.
 */

/** The server span of one HTTP request. */
export interface RequestSpan {
  /**
   * Runs a route's handler inside the request's span (its store calls and workflow starts become
   * children). Memory routes get a gen_ai memory span of their own in between (telemetry/semconv.ts).
   */
  runHandler<T>(route: string, where: { tenant_id: string; scope: string }, fn: () => Promise<T>): Promise<T>;
  /** A Lore error code the request ended with (kept as lore.error.code). */
  failed(code: string): void;
  /** Ends the span with the matched route template (null: no route matched) and the status sent. */
  end(route: string | null, status: number): void;
}

export interface RequestInfo {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  scheme: 'http' | 'https';
  serverAddress: string | null;
  serverPort: number | null;
  clientAddress: string | null;
  protocolVersion: string;
}

export interface HttpTracing {
  start(req: RequestInfo): RequestSpan;
}

/**
 * The workflow interceptor module a traced worker bundles into its workflow code (a file path, as
 * Temporal's bundler takes it). Here, not in otel-worker.ts, so the replay tests name it without
 * loading the OpenTelemetry SDK.
 */
export const TRACING_WORKFLOW_INTERCEPTORS = fileURLToPath(new URL('./workflow-interceptors.ts', import.meta.url));

/** What the worker registers: activity interceptors, the workflow span sink and the workflow interceptor module. */
export interface WorkerTracing {
  activityInterceptors: unknown[];
  sinks: Record<string, unknown>;
  workflowInterceptorModules: string[];
}

export interface Telemetry {
  http: HttpTracing;
  /** Temporal client interceptors (WorkflowClientInterceptor[]): trace context travels in the workflow's headers. */
  clientInterceptors: unknown[];
  /** Loaded on first use: the API process never loads the worker's half. */
  worker(): Promise<WorkerTracing>;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

let started: Promise<Telemetry | null> | null = null;

/**
 * Tracing for this process, or null when it is off. Once per process: the API and a worker in one
 * process (tests) share one tracer provider, as OpenTelemetry's global state requires.
 */
export function startTelemetry(config: Config, role: 'api' | 'worker', log: Log): Promise<Telemetry | null> {
  if (!config.tracing.enabled) return Promise.resolve(null);
  started ??= import('./otel').then((m) => m.startOtel(config, role, log));
  return started;
}
