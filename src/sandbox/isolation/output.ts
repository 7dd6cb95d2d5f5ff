import { StringDecoder } from 'node:string_decoder';
import type { OutputStream } from './types';

export const TAIL_BYTES = 4096;

/** Keeps the last `max` bytes written to it. */
class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}

  push(buf: Buffer): void {
    if (buf.length === 0) return;
    if (buf.length >= this.max) {
      this.chunks = [Buffer.from(buf.subarray(buf.length - this.max))];
      this.size = this.max;
      return;
    }
    this.chunks.push(Buffer.from(buf));
    this.size += buf.length;
    while (this.size > this.max) {
      const first = this.chunks[0]!;
      const excess = this.size - this.max;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as text, never starting in the middle of a UTF-8 sequence. */
  text(dropIncompleteEnd: boolean): string {
    let buf = Buffer.concat(this.chunks, this.size);
    let start = 0;
    // A tail cut by byte count may start inside a multi-byte character: skip continuation bytes.
    while (start < buf.length && start < 3 && (buf[start]! & 0xc0) === 0x80) start++;
    buf = buf.subarray(start);
    if (dropIncompleteEnd) buf = buf.subarray(0, completeUtf8Length(buf));
    return buf.toString('utf8');
  }
}

/** Length of the longest prefix of buf that does not end in an incomplete UTF-8 sequence. */
export function completeUtf8Length(buf: Buffer): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = buf[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte, keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/**
 * Streams stdout/stderr to the hook in arrival order, with one sequence counter across both
 * streams, UTF-8 decoded safely across chunk boundaries, and cut at a byte budget.
 */
export class OutputCollector {
  private seq = 0;
  private delivered = 0;
  private dropped = 0;
  private limitReached = false;
  private readonly decoders: Record<OutputStream, StringDecoder> = {
    stdout: new StringDecoder('utf8'),
    stderr: new StringDecoder('utf8'),
  };
  private readonly tails: Record<OutputStream, ByteTail> = {
    stdout: new ByteTail(TAIL_BYTES),
    stderr: new ByteTail(TAIL_BYTES),
  };

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (stream: OutputStream, chunk: string, seq: number) => void,
    /** Called once, the first time the budget is exceeded. */
    private readonly onLimit: () => void,
  ) {}

  get outputBytes(): number {
    return this.delivered;
  }
  get droppedBytes(): number {
    return this.dropped;
  }
  get truncated(): boolean {
    return this.limitReached;
  }

  push(stream: OutputStream, data: Buffer): void {
    if (this.limitReached) {
      this.dropped += data.length;
      return;
    }
    const room = this.maxBytes - this.delivered;
    let part = data;
    if (data.length > room) {
      part = data.subarray(0, room);
      this.dropped += data.length - room;
    }
    if (part.length > 0) {
      this.delivered += part.length;
      this.tails[stream].push(part);
      const text = this.decoders[stream].write(part);
      if (text.length > 0) this.emit(stream, text, this.seq++);
    }
    if (data.length > room) {
      this.limitReached = true;
      this.onLimit();
    }
  }

  /** Flush decoders. After truncation an incomplete trailing character is dropped, not replaced. */
  finish(): { stdout_tail: string; stderr_tail: string } {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.limitReached) continue;
      const rest = this.decoders[stream].end();
      if (rest.length > 0) this.emit(stream, rest, this.seq++);
    }
    return {
      stdout_tail: this.tails.stdout.text(this.limitReached),
      stderr_tail: this.tails.stderr.text(this.limitReached),
    };
  }
}
