import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An offline OpenAI-compatible /embeddings server for the tests (LORE_EMBEDDINGS=openai): it
// counts and records requests, can fail, and can hold its answers (a slow encoder).

const DIM = 64;

/** A feature-hashed bag of words: an offline stand-in for an OpenAI-compatible /embeddings. */
function hashVector(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const h = createHash('sha256').update(w).digest();
    v[h[0]! % DIM]! += h[1]! & 1 ? 1 : -1;
  }
  return v;
}

export interface FakeEmbedder {
  url: string;
  calls: () => number;
  /** The texts of every answered request, in the order they were answered. */
  inputs: () => string[][];
  fail: (on: boolean) => void;
  /** While held, requests wait unanswered (a slow encoder); release answers them. */
  hold: () => void;
  release: () => void;
  close: () => Promise<void>;
}

export function fakeEmbedder(): Promise<FakeEmbedder> {
  let calls = 0;
  const answered: string[][] = [];
  let failing = false;
  let held: (() => void)[] | null = null;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls += 1;
      if (held) {
        held.push(() => answer(body, res));
        return;
      }
      answer(body, res);
    });
  });
  const answer = (body: string, res: http.ServerResponse) => {
    if (failing) {
      res.writeHead(500).end('down');
      return;
    }
    const input = JSON.parse(body).input as string[];
    answered.push(input);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: hashVector(t) })) }));
  };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        calls: () => calls,
        inputs: () => answered.map((i) => [...i]),
        fail: (on) => (failing = on),
        hold: () => (held ??= []),
        release: () => {
          const waiting = held ?? [];
          held = null;
          for (const go of waiting) go();
        },
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(() => r()));
        },
      });
    }),
  );
}
