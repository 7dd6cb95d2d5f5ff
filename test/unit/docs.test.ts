import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * docs/benchmarks.md is a page of current results, each with the command that produced it, not a
 * diary (docs/design.md, "Linting"): it stays within 300 lines, so a new figure replaces an old one.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_BENCHMARK_LINES = 300;

describe('docs', () => {
  it(`docs/benchmarks.md has at most ${MAX_BENCHMARK_LINES} lines`, () => {
    const text = readFileSync(`${ROOT}docs/benchmarks.md`, 'utf8');
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    assert.ok(lines <= MAX_BENCHMARK_LINES, `docs/benchmarks.md has ${lines} lines; keep current results only (at most ${MAX_BENCHMARK_LINES})`);
  });
});
