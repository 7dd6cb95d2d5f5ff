import { startLocalLore } from '../harness';
import { FAMILIES } from './families';
import { cli } from '../cli';

const USAGE = `Diagnostic companion of quality.ts: for each held-out phrasing (without task_kind), where the
right family ranks in planning/context's workflow_signals and with which signals.
  node --import tsx bench/learning/diagnose.ts [--embeddings none|local|onnx]`;

const { values: opts } = cli(USAGE, { embeddings: { type: 'string', default: 'none' } });
const arg = (k: keyof typeof opts, d: string) => opts[k] ?? d;
const EMB = arg('embeddings', 'none');
const api = await startLocalLore({
  env: { LORE_EMBEDDINGS: EMB, ...(process.env.LORE_EMBEDDINGS_LOCAL_DIR ? { LORE_EMBEDDINGS_LOCAL_DIR: process.env.LORE_EMBEDDINGS_LOCAL_DIR } : {}) },
});
const id = { tenant_id: 'bench', scope: `diag-${Date.now().toString(36)}` };
for (const [fi, f] of FAMILIES.entries()) {
  for (const [k, goal] of f.train.entries()) {
    await api.post('/v1/memory/write', {
      ...id,
      execution: { goal, task_kind: f.kind, run_id: `t-${fi}-${k}`, steps: [{ tool: f.first, file_path: f.file }], target_files: [f.file], outcome: 'success' },
    });
  }
}
await api.modules.learning.services.idle();
for (const f of FAMILIES) {
  for (const text of f.test) {
    const r = await api.post('/v1/memory/planning/context', { ...id, query_text: text });
    const sig = r.body.workflow_signals as { line: string; relevance: number; lexical: number; dense: number | null; dense_baseline: number | null }[];
    const rank = sig.findIndex((s) => s.line.includes(f.train[0]!.slice(0, 20)));
    const top = sig[0];
    console.log(
      `${rank === 0 ? 'OK ' : 'MISS'} rank=${rank} fa=${r.body.first_action ? 'y' : 'n'} top=${top ? `${top.relevance}/${top.lexical}/${top.dense}-runnerup${top.dense_baseline}` : '-'} right=${rank >= 0 ? `${sig[rank]!.relevance}/${sig[rank]!.lexical}/${sig[rank]!.dense}` : '-'} :: ${text}`,
    );
  }
}
await api.close();
process.exit(0);
