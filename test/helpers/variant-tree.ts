/**
 * A copy of this Lore source tree with a few edits: "the next version" of Lore, for tests that
 * replay histories against changed workflow code or upgrade a running Lore to it. The copy holds
 * bin, src, activities, workflows and the package files; node_modules is a symlink to this tree's
 * (so its workflow bundle and transpiled build are cached there under the copy's own hashes).
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const COPIED = ['bin', 'src', 'activities', 'workflows', 'package.json', 'package-lock.json', 'tsconfig.json'];

export interface SourceEdit {
  /** Path relative to the repository root, e.g. workflows/automation.ts. */
  file: string;
  /** Text that occurs exactly once in the file. */
  find: string;
  replace: string;
}

export interface VariantTree {
  root: string;
  workflowsPath: string;
  loreBin: string;
  remove(): void;
}

export function variantTree(name: string, edits: SourceEdit[]): VariantTree {
  const root = fs.mkdtempSync(path.join(tmpdir(), `lore-variant-${name}-`));
  for (const entry of COPIED) fs.cpSync(path.join(REPO_ROOT, entry), path.join(root, entry), { recursive: true });
  fs.symlinkSync(fs.realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(root, 'node_modules'), 'dir');
  for (const e of edits) {
    const file = path.join(root, e.file);
    const text = fs.readFileSync(file, 'utf8');
    const at = text.indexOf(e.find);
    if (at < 0 || text.indexOf(e.find, at + 1) >= 0) {
      throw new Error(`variant ${name}: the text to replace must occur exactly once in ${e.file}: ${JSON.stringify(e.find)}`);
    }
    fs.writeFileSync(file, text.slice(0, at) + e.replace + text.slice(at + e.find.length));
  }
  return {
    root,
    workflowsPath: path.join(root, 'workflows', 'index.ts'),
    loreBin: path.join(root, 'bin', 'lore.mjs'),
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
