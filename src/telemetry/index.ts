import type { Config } from '../config';
import type { Log } from '../log';
import type { Telemetry } from './types';

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

export { TRACING_WORKFLOW_INTERCEPTORS } from './workflow-module';

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
