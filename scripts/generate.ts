import { readFileSync, writeFileSync } from 'node:fs';
import { routes } from '../src/contract';
import { GENERATED, renderOpenApiFile, renderSdk } from './codegen';

const root = new URL('..', import.meta.url);
const version = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).version as string;
const files: Record<string, string> = {
  [GENERATED.sdk]: renderSdk(routes),
  [GENERATED.openapi]: renderOpenApiFile(routes, version),
};
for (const [path, content] of Object.entries(files)) {
  const target = new URL(path, root);
  let before = '';
  try {
    before = readFileSync(target, 'utf8');
  } catch {
    /* first generation */
  }
  if (before === content) {
    console.log(`unchanged ${path}`);
  } else {
    writeFileSync(target, content);
    console.log(`wrote     ${path}`);
  }
}
