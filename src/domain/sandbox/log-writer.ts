import type { SandboxLogs } from '../../store/sandbox/index';
import type { Clock } from '../../model/clock';
import type { LogEntryDoc, LogStream } from '../../model/sandbox/records';

/** Entries are cut at about this size, so a page of logs stays a sensible size. */
const ENTRY_BYTES = 32 * 1024;
/** Output is written at least this often while a command runs (batched: one insert per flush). */
const FLUSH_MS = 200;

interface Open {
  stream: LogStream;
  parts: string[];
  bytes: number;
  at: string;
}

/**
 * Turns the runner's output chunks into stored log entries: consecutive chunks of one stream are
 * merged into an entry (up to ENTRY_BYTES), entries get seq 0, 1, 2, … in arrival order across
 * both streams, and are appended in batches in that order. Output is bounded by the run's
 * max_output_bytes, so buffering while a write is in flight is bounded too.
 */
export class LogWriter {
  private open: Open | null = null;
  private sealed: LogEntryDoc[] = [];
  private seq = 0;
  private written = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private lastError: string | null = null;

  constructor(
    private readonly logs: SandboxLogs,
    private readonly runKey: string,
    private readonly clock: Clock,
  ) {}

  /** Entries handed out so far (stored or about to be). */
  get entries(): number {
    return this.seq + (this.open ? 1 : 0);
  }

  get storedEntries(): number {
    return this.written;
  }

  /** Why some entries could not be stored, if any could not. */
  get problem(): string | null {
    return this.lastError;
  }

  push(stream: LogStream, chunk: string): void {
    const bytes = Buffer.byteLength(chunk);
    if (this.open && (this.open.stream !== stream || this.open.bytes + bytes > ENTRY_BYTES)) this.seal();
    this.open ??= { stream, parts: [], bytes: 0, at: this.clock.now().toISOString() };
    this.open.parts.push(chunk);
    this.open.bytes += bytes;
    if (this.open.bytes >= ENTRY_BYTES) this.seal();
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.flush();
    }, FLUSH_MS);
  }

  private seal(): void {
    if (!this.open) return;
    const o = this.open;
    this.open = null;
    const seq = this.seq++;
    this.sealed.push({ _id: `${this.runKey}:${String(seq).padStart(9, '0')}`, run_key: this.runKey, seq, stream: o.stream, text: o.parts.join(''), bytes: o.bytes, at: o.at });
  }

  /** Seals what is open and queues one ordered batch write behind the previous one. */
  flush(): void {
    this.seal();
    if (this.sealed.length === 0) return;
    const batch = this.sealed;
    this.sealed = [];
    this.chain = this.chain.then(() => this.write(batch));
  }

  private async write(batch: LogEntryDoc[]): Promise<void> {
    // A failed batch is retried a few times (entries are keyed by seq, so a repeat is harmless),
    // then given up with the reason recorded on the run.
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        await this.logs.append(batch);
        this.written += batch.length;
        return;
      } catch (err) {
        this.lastError = (err as Error).message;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      }
    }
    this.failures += batch.length;
    this.lastError = `${this.failures} log entries could not be stored: ${this.lastError}`;
  }

  /** Writes everything still buffered; resolves when every batch has been stored (or given up). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
    await this.chain;
  }
}
