import { fileURLToPath } from 'node:url';

/**
 * The workflow interceptor module a traced worker bundles into its workflow code (a file path, as
 * Temporal's bundler takes it). Here, not in otel-worker.ts, so the replay tests name it without
 * loading the OpenTelemetry SDK.
 */
export const TRACING_WORKFLOW_INTERCEPTORS = fileURLToPath(new URL('./workflow-interceptors.ts', import.meta.url));
