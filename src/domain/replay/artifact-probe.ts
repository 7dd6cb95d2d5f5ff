import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import { relativeInside, type ArtifactExpectation, type ArtifactFacts } from './signature';

/**
 * Looks at the files a signature expects (artifacts: [{path, sha256?}]) below a base directory:
 * a command step's session workdir (the sandbox's /work) or, for a host step, the run's
 * workspace. Only reads. A path that is absolute, climbs with `..`, or leads out of the base
 * through a symbolic link is reported as a problem, never followed out.
 */
export async function probeArtifacts(base: string | null, wanted: ArtifactExpectation[]): Promise<ArtifactFacts> {
  const facts: ArtifactFacts = new Map();
  if (wanted.length === 0) return facts;
  let root: string | null = null;
  if (base !== null) root = await fsp.realpath(base).catch(() => null);
  for (const a of wanted) {
    if (!relativeInside(a.path)) {
      facts.set(a.path, { exists: false, sha256: null, problem: 'the path must be relative and stay inside the working directory' });
      continue;
    }
    if (root === null) {
      facts.set(a.path, { exists: false, sha256: null, problem: base === null ? 'there is no directory to look in' : `${base} does not exist` });
      continue;
    }
    const real = await fsp.realpath(path.join(root, a.path)).catch(() => null);
    if (real === null) {
      facts.set(a.path, { exists: false, sha256: null });
      continue;
    }
    if (real !== root && !real.startsWith(root + path.sep)) {
      facts.set(a.path, { exists: false, sha256: null, problem: 'the path leads out of the working directory' });
      continue;
    }
    const st = await fsp.stat(real).catch(() => null);
    if (!st?.isFile()) {
      facts.set(a.path, { exists: false, sha256: null, problem: st ? 'it is not a regular file' : null });
      continue;
    }
    facts.set(a.path, { exists: true, sha256: a.sha256 === null ? null : await sha256Of(real) });
  }
  return facts;
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (b) => h.update(b))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}
