/**
 * Tracing's workflow interceptors (bundled into the workflow code when tracing is on; otel-worker.ts):
 * Temporal's OpenTelemetry interceptors, with a tracer whose span and trace ids do not come from
 * the workflow's random numbers.
 *
 * Why not Temporal's module as it is: its tracer makes ids with Math.random, which in workflow code
 * is the run's seeded generator — the one uuid4() draws from too (the automation workflow names its
 * playbook children with it). A run that was traced would then draw other uuids than the same run
 * untraced, so a run started with tracing off fails to replay (a determinism error on its next child)
 * once a worker with tracing on picks it up, and the reverse: turning tracing on or off across a
 * restart would break every open automation run (test/workflows/histories.test.ts replays every
 * committed history with these interceptors). Here each workflow's tracer has its own generator,
 * seeded from the run id; the workflow's own random numbers are left alone.
 *
 * Workflow code: deterministic, no I/O (spans leave through the sink Temporal's exporter reads).
 */
// First: it sets up the globals OpenTelemetry needs in workflow code (performance, window).
import { OpenTelemetryInboundInterceptor, OpenTelemetryInternalsInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import { inWorkflowContext, workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';

/** xorshift128 seeded from a string (FNV-1a): ids unique per run, without touching Math.random. */
export class SeededIdGenerator implements IdGenerator {
  private s: [number, number, number, number];

  constructor(seed: string) {
    const h = (salt: number) => {
      let x = (0x811c9dc5 ^ salt) >>> 0;
      for (let i = 0; i < seed.length; i++) x = Math.imul(x ^ seed.charCodeAt(i), 0x01000193) >>> 0;
      return x || 1;
    };
    this.s = [h(1), h(2), h(3), h(4)];
  }

  private next(): number {
    const [a, , , d] = this.s;
    let t = a ^ (a << 11);
    t ^= t >>> 8;
    this.s = [this.s[1], this.s[2], d, (d ^ (d >>> 19) ^ t) >>> 0];
    return this.s[3];
  }

  private hex(words: number): string {
    let out = '';
    for (let i = 0; i < words; i++) out += this.next().toString(16).padStart(8, '0');
    // An all-zero id is invalid in OpenTelemetry.
    return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
  }

  generateTraceId(): string {
    return this.hex(4);
  }

  generateSpanId(): string {
    return this.hex(2);
  }
}

/** One tracer per workflow run (the factory below runs once per run), its spans to Temporal's sink exporter. */
function runTracer(): Tracer {
  const seed = inWorkflowContext() ? `${workflowInfo().workflowId}\0${workflowInfo().runId}` : 'outside-a-workflow';
  const provider = new BasicTracerProvider({ idGenerator: new SeededIdGenerator(seed) });
  provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
  return provider.getTracer('@temporalio/interceptor-workflow');
}

class InboundInterceptor extends OpenTelemetryInboundInterceptor {
  constructor(tracer: Tracer) {
    super();
    // The parent's field (its module-wide tracer, ids from Math.random), replaced.
    (this as unknown as { tracer: Tracer }).tracer = tracer;
  }
}

class OutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  constructor(tracer: Tracer) {
    super();
    (this as unknown as { tracer: Tracer }).tracer = tracer;
  }
}

export const interceptors = (): WorkflowInterceptors => {
  const tracer = runTracer();
  return {
    inbound: [new InboundInterceptor(tracer)],
    outbound: [new OutboundInterceptor(tracer)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
