import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layers of docs/design.md, enforced: dependency-cruiser checks every import of src/,
 * workflows/ and activities/ against the allowed directions in .dependency-cruiser.cjs (LAYERS)
 * and finds no cycles. A second run over a small tree with known bad imports makes sure the
 * check can fail.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const require = createRequire(import.meta.url);
// its package exports no bin path, so the CLI is named by where npm installs it
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const LAYERS = (require(CONFIG) as { LAYERS: Record<string, { path: string }> }).LAYERS;

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

async function depcruise(cwd: string, paths: string[]): Promise<Violation[]> {
  const child = spawn(process.execPath, [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', ...paths], { cwd });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise((resolve) => child.once('close', resolve));
  let result: { summary: { violations: Violation[] } };
  try {
    result = JSON.parse(out);
  } catch {
    throw new Error(`dependency-cruiser did not answer with JSON:\n${err || out}`);
  }
  return result.summary.violations;
}

const show = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`;

describe('import boundaries', () => {
  it('every import follows the allowed directions and none forms a cycle', { timeout: 600_000 }, async () => {
    const violations = await depcruise(ROOT, ['src', 'workflows', 'activities']);
    assert.deepEqual(violations.map(show), [], 'see the allowed directions in .dependency-cruiser.cjs (LAYERS) and docs/design.md, "Layers"');
  });

  it('every file of src/ belongs to a layer', () => {
    const patterns = Object.values(LAYERS).map((l) => new RegExp(l.path));
    const unplaced: string[] = [];
    for (const entry of readdirSync(join(ROOT, 'src'), { withFileTypes: true })) {
      // a directory is placed when a file inside it would be
      const probe = entry.isDirectory() ? `src/${entry.name}/x.ts` : `src/${entry.name}`;
      if (!entry.name.endsWith('.md') && !patterns.some((p) => p.test(probe))) unplaced.push(probe);
    }
    assert.deepEqual(unplaced, [], 'add the new directory or file to LAYERS in .dependency-cruiser.cjs');
  });

  it('process.env is read only by config.ts', () => {
    // Besides config.ts, the environment is only handed on whole: by the CLI entry points to the
    // parsers (loadConfig, the hook's and the doctor's), and to child processes. The Temporal
    // binary is looked up on PATH the way spawn() itself would.
    const handedOn: { file: RegExp; line: RegExp }[] = [
      { file: /^src\/cli\//, line: /^(?!.*process\.env[.[]).*process\.env/ },
      { file: /^src\/(main|local\/child)\.ts$/, line: /env: (opts\.env \?\? )?process\.env,/ },
      { file: /^src\/local\/temporal-server\.ts$/, line: /env: \{ \.\.\.process\.env, |\(process\.env\.PATH \?\? ''\)/ },
    ];
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|mts|mjs)$/.test(entry.name) && path !== 'src/config.ts') {
          readFileSync(join(ROOT, path), 'utf8')
            .split('\n')
            .forEach((text, i) => {
              const code = text.replace(/\/\/.*$/, '').trim();
              if (code.startsWith('*') || !code.includes('process.env')) return;
              if (!handedOn.some((h) => h.file.test(path) && h.line.test(code))) readers.push(`${path}:${i + 1}: ${code}`);
            });
        }
      }
    };
    for (const dir of ['src', 'workflows', 'activities']) walk(dir);
    assert.deepEqual(readers, [], 'read the variable in src/config.ts (and document it in docs/configuration.md)');
  });

  describe('the check fails on a bad import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-boundaries-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };

    it('names the rule each bad import breaks', { timeout: 600_000 }, async () => {
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', strict: true } }));
      // the model reaching up into the store, which imports it back (a cycle)
      write('src/model/node.ts', "import type { Stored } from '../store/nodes';\nexport type Node = { id: string; stored?: Stored };\n");
      write('src/store/nodes.ts', "import type { Node } from '../model/node';\nexport type Stored = { node: Node };\n");
      // the contract reaching into the domain
      write('src/contract/memory.ts', "import { TIERS } from '../domain/tiers';\nexport const tiers = TIERS;\n");
      write('src/domain/tiers.ts', "export const TIERS = ['hot'];\n");
      // the engine importing workflow code
      write('src/engine/engine.ts', "import { SA } from '../../workflows/attributes';\nexport const sa = SA;\n");
      write('workflows/attributes.ts', 'export const SA = 1;\n');
      // the domain reading the whole Config instead of the settings it is handed
      write('src/config.ts', 'export interface Config { dataDir: string }\n');
      write('src/domain/settings.ts', "import type { Config } from '../config';\nexport type S = Pick<Config, 'dataDir'>;\n");
      // the HTTP layer reaching into a family
      write('src/http/app.ts', "import type { R } from '../domain/read';\nexport type H = R;\n");
      // a good import, for contrast: the domain may use the store
      write('src/domain/read.ts', "import type { Stored } from '../store/nodes';\nexport type R = Stored;\n");

      const found = (await depcruise(dir, ['src', 'workflows'])).map(show).sort();
      assert.deepEqual(
        found.filter((v) => !v.startsWith('no-circular')),
        [
          'layer-contract: src/contract/memory.ts → src/domain/tiers.ts',
          'layer-domain: src/domain/settings.ts → src/config.ts',
          'layer-engine: src/engine/engine.ts → workflows/attributes.ts',
          'layer-http: src/http/app.ts → src/domain/read.ts',
          'layer-model: src/model/node.ts → src/store/nodes.ts',
        ],
      );
      // the cycle is reported once, from whichever of its two modules is cruised first
      const cycles = found.filter((v) => v.startsWith('no-circular'));
      assert.equal(cycles.length, 1, found.join('\n'));
      assert.match(cycles[0]!, /^no-circular: src\/(model\/node|store\/nodes)\.ts → .*src\/(store\/nodes|model\/node)\.ts → /);
    });
  });
});
