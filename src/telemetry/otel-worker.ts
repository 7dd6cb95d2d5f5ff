import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { Context as ActivityContext } from '@temporalio/activity';
import { TRACING_WORKFLOW_INTERCEPTORS } from './workflow-module';
import type { WorkerTracing } from './types';

/**
 * The worker's half of tracing: Temporal's activity interceptors (an activity's span continues
 * the workflow's, whose context travels in the activity's headers), the sink that exports the
 * spans workflow code makes (workflow code cannot do I/O), and the workflow interceptor module,
 * which goes into the workflow bundle (src/workflow-bundle.ts keys the bundle by it).
 */
export function workerTracing(processor: SpanProcessor, resource: Resource): WorkerTracing {
  return {
    activityInterceptors: [(ctx: ActivityContext) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    // Temporal's workflow interceptors with span ids that leave the workflow's random numbers alone
    // (workflow-interceptors.ts says why: turning tracing on or off must not break open runs).
    workflowInterceptorModules: [TRACING_WORKFLOW_INTERCEPTORS],
  };
}
