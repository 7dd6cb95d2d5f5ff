import { loadConfig } from '../config';
import { LocalServiceError } from '../local/errors';
import { installModel } from '../local/models';
import { createLog } from '../log';
import { CATALOG, catalogModel, DEFAULT_ENCODER, findInstalledModel } from '../retrieval/embedders/catalog';

const USAGE = `Usage:
  lore models list                 the sentence encoders Lore can install, and which are installed
  lore models install [NAME ...]   install them (default: the configured one, LORE_EMBEDDINGS_MODEL, else ${DEFAULT_ENCODER})
  lore models install --all        install every one of the list
`;

/** `lore models …`: lists and installs the catalog's encoders (src/local/models.ts). Returns the exit code. */
export async function runModels(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const config = loadConfig(env);
  const { modelsDir, modelsRepository, model: configured } = config.embeddings;
  const [sub = 'list', ...rest] = args;
  if (sub === 'list') {
    const wanted = configured && catalogModel(configured) ? configured : DEFAULT_ENCODER;
    for (const m of CATALOG) {
      const installed = findInstalledModel(modelsDir, m);
      const mark = m.name === wanted ? '*' : ' ';
      process.stdout.write(`${mark} ${m.name.padEnd(22)} ${m.description.padEnd(42)} ${installed ? installed.dir : 'not installed'}\n`);
    }
    process.stdout.write(`\n* the model LORE_EMBEDDINGS=onnx uses (LORE_EMBEDDINGS_MODEL, default ${DEFAULT_ENCODER}); installed under ${modelsDir}\n`);
    return 0;
  }
  if (sub !== 'install') {
    process.stderr.write(`unknown subcommand '${sub}'\n\n${USAGE}`);
    return 2;
  }
  const names = rest.includes('--all') ? CATALOG.map((m) => m.name) : rest.length > 0 ? rest : [configured && catalogModel(configured) ? configured : DEFAULT_ENCODER];
  const unknown = names.filter((n) => !catalogModel(n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown model ${unknown.join(', ')}: one of ${CATALOG.map((m) => m.name).join(', ')}\n`);
    return 2;
  }
  const log = createLog('info', 'lore');
  for (const name of names) {
    const model = catalogModel(name)!;
    const found = findInstalledModel(modelsDir, model);
    if (found) {
      process.stdout.write(`${name}: already installed in ${found.dir}\n`);
      continue;
    }
    try {
      const installed = await installModel(model, { modelsDir, repository: modelsRepository, log });
      process.stdout.write(`${name}: installed in ${installed.dir}\n`);
    } catch (err) {
      process.stderr.write(`lore: ${name}: ${(err as Error).message}\n`);
      if (!(err instanceof LocalServiceError)) process.stderr.write(`${(err as Error).stack}\n`);
      return 1;
    }
  }
  return 0;
}
