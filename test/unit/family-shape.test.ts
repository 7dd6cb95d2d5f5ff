import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * One shape for every family (docs/design.md, "One shape for every family"): each folder of
 * src/domain with a module.ts is a family and holds module.ts (the wiring: context, handlers,
 * services), handlers.ts (one handler per route), context.ts (what its operations use, and its
 * settings) and views.ts (its wire views), under those names. A second run over a small tree with
 * known departures makes sure the check can fail.
 */

const DOMAIN = fileURLToPath(new URL('../../src/domain', import.meta.url));
const REQUIRED = ['module.ts', 'handlers.ts', 'context.ts', 'views.ts'];
/** Names the template replaced: a file under one of them belongs in the file named beside it. */
const RETIRED: Record<string, string> = { 'wire.ts': 'views.ts', 'view.ts': 'views.ts' };
/** A route handler written in an object literal: `'family.route': (input, ctx) =>`. */
const INLINE_HANDLER = /^\s*'[\w.]+': (async )?(\(|\w+\()/m;

/** What departs from the family template under `domainDir`, one line each (empty: every family has the shape). */
export function familyShapeProblems(domainDir: string): string[] {
  const problems: string[] = [];
  for (const entry of readdirSync(domainDir, { withFileTypes: true })) {
    const dir = join(domainDir, entry.name);
    if (!entry.isDirectory() || !existsSync(join(dir, 'module.ts'))) continue;
    const family = entry.name;
    for (const file of REQUIRED) if (!existsSync(join(dir, file))) problems.push(`${family}: no ${file}`);
    for (const [old, now] of Object.entries(RETIRED)) if (existsSync(join(dir, old))) problems.push(`${family}: ${old} (the template calls it ${now})`);
    if (INLINE_HANDLER.test(readFileSync(join(dir, 'module.ts'), 'utf8'))) problems.push(`${family}: route handlers in module.ts (they belong in handlers.ts)`);
    const handlers = join(dir, 'handlers.ts');
    if (existsSync(handlers) && !/export function create\w+Handlers\(/.test(readFileSync(handlers, 'utf8'))) {
      problems.push(`${family}: handlers.ts exports no create…Handlers function`);
    }
  }
  return problems.sort();
}

describe('every domain family has the same shape', () => {
  it('each family folder holds module.ts, handlers.ts, context.ts and views.ts, and module.ts holds no handlers', () => {
    const families = readdirSync(DOMAIN, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(DOMAIN, e.name, 'module.ts')));
    // the ten families of docs/design.md; a folder without module.ts (runs: the run kit) is a library
    assert.ok(families.length >= 10, `found ${families.length} families`);
    assert.deepEqual(familyShapeProblems(DOMAIN), [], 'see docs/design.md, "One shape for every family"');
  });

  describe('the check fails on a family that departs from it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-family-shape-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const write = (path: string, text = 'export {};\n') => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    };

    it('names each departure', () => {
      const handlers = 'export function createGoodHandlers() {\n  return {};\n}\n';
      // a family with the shape
      for (const f of ['module.ts', 'context.ts', 'views.ts']) write(`good/${f}`);
      write('good/handlers.ts', handlers);
      // handlers inline in module.ts, views under the old name, no context
      write('inline/module.ts', "export const m = {\n  handlers: {\n    'inline.get': (input, ctx) => get(ctx, input),\n  },\n};\n");
      write('inline/wire.ts');
      // a handlers.ts that makes no handlers
      for (const f of ['module.ts', 'context.ts', 'views.ts', 'handlers.ts']) write(`odd/${f}`);
      // a library folder (no module.ts) is not a family
      write('runs/wait.ts');
      assert.deepEqual(familyShapeProblems(dir), [
        'inline: no context.ts',
        'inline: no handlers.ts',
        'inline: no views.ts',
        'inline: route handlers in module.ts (they belong in handlers.ts)',
        'inline: wire.ts (the template calls it views.ts)',
        'odd: handlers.ts exports no create…Handlers function',
      ]);
    });
  });
});
