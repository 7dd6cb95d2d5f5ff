/**
 * Prometheus text exposition for request counts/latencies per route and workflow starts and
 * failures. Small on purpose: a counter map and fixed-bucket histograms, no client library.
 */

const BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

const labelKey = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  private readonly workflowStarts = new Map<string, number>();
  private readonly workflowFailures = new Map<string, number>();
  private readonly gauges = new Map<string, () => number>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = labelKey({ method, route, status: String(status) });
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const hkey = labelKey({ method, route });
    let h = this.durations.get(hkey);
    if (!h) {
      h = { counts: BUCKETS_S.map(() => 0), sum: 0, count: 0 };
      this.durations.set(hkey, h);
    }
    for (let i = 0; i < BUCKETS_S.length; i += 1) if (seconds <= BUCKETS_S[i]!) h.counts[i]! += 1;
    h.sum += seconds;
    h.count += 1;
  }

  workflowStarted(workflowType: string): void {
    const key = labelKey({ workflow_type: workflowType });
    this.workflowStarts.set(key, (this.workflowStarts.get(key) ?? 0) + 1);
  }

  workflowFailed(workflowType: string, reason: string): void {
    const key = labelKey({ workflow_type: workflowType, reason });
    this.workflowFailures.set(key, (this.workflowFailures.get(key) ?? 0) + 1);
  }

  /** A value read at scrape time (e.g. index sizes). */
  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  render(): string {
    const out: string[] = [];
    out.push('# HELP lore_http_requests_total HTTP requests by route and status.', '# TYPE lore_http_requests_total counter');
    for (const [k, v] of this.requests) out.push(`lore_http_requests_total{${k}} ${v}`);
    out.push('# HELP lore_http_request_duration_seconds HTTP request latency by route.', '# TYPE lore_http_request_duration_seconds histogram');
    for (const [k, h] of this.durations) {
      BUCKETS_S.forEach((b, i) => out.push(`lore_http_request_duration_seconds_bucket{${k},le="${b}"} ${h.counts[i]}`));
      out.push(`lore_http_request_duration_seconds_bucket{${k},le="+Inf"} ${h.count}`);
      out.push(`lore_http_request_duration_seconds_sum{${k}} ${h.sum.toFixed(6)}`);
      out.push(`lore_http_request_duration_seconds_count{${k}} ${h.count}`);
    }
    out.push('# HELP lore_workflow_starts_total Temporal workflows started by this process.', '# TYPE lore_workflow_starts_total counter');
    for (const [k, v] of this.workflowStarts) out.push(`lore_workflow_starts_total{${k}} ${v}`);
    out.push('# HELP lore_workflow_failures_total Temporal workflows this process saw fail, time out or be terminated.', '# TYPE lore_workflow_failures_total counter');
    for (const [k, v] of this.workflowFailures) out.push(`lore_workflow_failures_total{${k}} ${v}`);
    for (const [name, read] of this.gauges) {
      let value = NaN;
      try {
        value = read();
      } catch {
        /* a gauge that cannot be read is reported as NaN */
      }
      out.push(`# TYPE ${name} gauge`, `${name} ${value}`);
    }
    const mem = process.memoryUsage();
    out.push('# TYPE lore_process_resident_memory_bytes gauge', `lore_process_resident_memory_bytes ${mem.rss}`);
    out.push('# TYPE lore_process_heap_used_bytes gauge', `lore_process_heap_used_bytes ${mem.heapUsed}`);
    return `${out.join('\n')}\n`;
  }
}
