import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { GENERATED, renderOpenApiFile, renderSdk } from '../../scripts/codegen';
import { LORE_VERSION } from '../../src/config';
import { pathsOf, routes } from '../../src/contract';

const root = new URL('../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

it('the committed SDK is generated from the current contract (run `npm run generate`)', () => {
  assert.equal(read(GENERATED.sdk), renderSdk(routes), `${GENERATED.sdk} is stale: run npm run generate`);
});

it('the committed OpenAPI document is generated from the current contract (run `npm run generate`)', () => {
  assert.equal(read(GENERATED.openapi), renderOpenApiFile(routes, LORE_VERSION), `${GENERATED.openapi} is stale: run npm run generate`);
});

it('the version in config matches package.json', () => {
  assert.equal(LORE_VERSION, JSON.parse(read('package.json')).version);
});

it('every route has a unique canonical path and SDK name, and no alias shadows another route', () => {
  const seen = new Map<string, string>();
  const names = new Set<string>();
  for (const [key, def] of Object.entries(routes)) {
    assert.ok(!names.has(def.name), `duplicate SDK name ${def.name}`);
    names.add(def.name);
    for (const { method, path } of pathsOf(def)) {
      const k = `${method} ${path}`;
      assert.ok(!seen.has(k), `${k} is served by both ${seen.get(k)} and ${key}`);
      seen.set(k, key);
    }
  }
});
