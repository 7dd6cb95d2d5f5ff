import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Every entry under dir: kind, mode and content hash (or link target), and with `times` the mtime, by relative path. */
export function treeDigest(dir: string, times = true): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const p = join(dir, r);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = `dir ${mode}`;
        walk(r);
      } else out[r] = `file ${mode} ${createHash('sha256').update(readFileSync(p)).digest('hex')}${times ? ` ${st.mtimeMs}` : ''}`;
    }
  };
  walk('');
  return out;
}
