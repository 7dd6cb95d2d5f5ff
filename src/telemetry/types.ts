/** The shapes of tracing (./index.ts): what the HTTP layer, the worker and the app hold; ./otel.ts implements them. */

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
