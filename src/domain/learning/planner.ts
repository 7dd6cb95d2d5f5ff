import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import { familyQuery } from './family';
import type { PatternMatch, PolicyMatch, WorkflowMatch } from './matches';
import { patternClass } from './pattern-model';
import type { TaskRequest } from './request';
import { evaluateRules, type RuleEvaluation } from './rule-model';
import { THRESHOLDS } from './score';
import type { ScopeLearning } from './scope-state';
import type { LoadProgress } from './scopes';
import { findPastTasks, nameMatcher, type PastTask } from './past-tasks';
import { rankTools, type ToolScore } from './tool-ranking';
import { allowedBy, firstActionOf, type FirstAction } from './first-action';
import { voteFiles, type Vote } from './file-vote';
import { taskText } from './request';
import { uncertaintyOf, type Uncertainty } from './uncertainty';

/**
 * The one computation behind every planning surface (kickoff, planning context, context
 * assembly, action retrieval, experience intelligence, tool selection, review packs): which
 * learned workflows, patterns, policies and rules apply to a task, how tools rank, what the first
 * move is and how sure that is. Surfaces only format this, so they cannot disagree.
 */

export interface Plan {
  request: TaskRequest;
  workflows: WorkflowMatch[];
  /** Relevant workflows whose node is archived: offered for rehydration, never applied. */
  archived: WorkflowMatch[];
  patterns: PatternMatch[];
  policies: PolicyMatch[];
  rules: RuleEvaluation;
  ranking: ToolScore[];
  selected_tool: string | null;
  first_action: FirstAction | null;
  /** The similar past tasks (every execution the scope remembers is a candidate), best first. */
  tasks: PastTask[];
  /** The files they, the matching workflows and the task's own words point to, best first. */
  vote: Vote;
  uncertainty: Uncertainty;
}

const MAX_WORKFLOWS = 10;
const MAX_PATTERNS = 20;

export async function plan(
  memory: MemoryServices,
  ref: ScopeRef,
  state: ScopeLearning,
  r: TaskRequest,
  opts: { vector?: Float32Array | null; loading?: LoadProgress | null } = {},
): Promise<Plan> {
  const q = { ...familyQuery(r), vector: opts.vector ?? null };
  // Live and archived workflows apart, each ranked by relevance with stable ones a little ahead
  // (workflow classes: scope-state.ts workflowClass); the index reads only what can rank.
  const ranked = (tier: 'live' | 'archive') =>
    state.workflows
      .search(q, { minScore: THRESHOLDS.relevant, limit: MAX_WORKFLOWS, include: (c) => c.startsWith(`${tier}:`), boost: (c) => (c.endsWith(':stable') ? 0.05 : 0) })
      .map((h) => ({ entry: h.doc, score: h.score, signals: h.signals }));
  const workflows = ranked('live');
  const archived = ranked('archive');

  const patterns: PatternMatch[] = state.patterns.search(q, { minScore: THRESHOLDS.relevant, limit: MAX_PATTERNS }).map((h) => {
    const policy = state.policyOf(h.doc.slot.family_id, h.doc.slot.tool);
    return { entry: h.doc, score: h.score, signals: h.signals, cls: patternClass(h.doc.slot), retired_policy_id: policy?.slot.state === 'retired' ? policy.node.id : null };
  });

  // Policies belong to the families of the matched patterns and workflows, at their best score.
  const familyScore = new Map<string, number>();
  for (const m of [...patterns.map((p) => ({ f: p.entry.slot.family_id, s: p.score })), ...workflows.map((w) => ({ f: w.entry.slot.family_id, s: w.score }))]) {
    familyScore.set(m.f, Math.max(familyScore.get(m.f) ?? 0, m.s));
  }
  const policies: PolicyMatch[] = [];
  for (const [family, score] of familyScore) {
    for (const p of state.policiesOfFamily(family)) policies.push({ entry: p, score, applies: p.slot.state === 'active' });
  }
  policies.sort((a, b) => b.score - a.score || (a.entry.node.id < b.entry.node.id ? -1 : 1));

  const rules = evaluateRules(
    [...state.rules.values()].map((x) => ({ id: x.node.id, slot: x.slot })),
    { task_kind: r.task_kind, terms: new Set(r.terms), file_path: r.file_path, candidates: r.candidates },
  );
  const ranking = rankTools({ request: r, workflows, patterns, policies, rules });
  const selected = ranking.find((t) => !t.denied && t.score > 0 && (r.candidates.length === 0 || r.candidates.includes(t.tool)));
  const text = taskText(r);
  const tasks = text === '' ? [] : await findPastTasks(memory, ref, state, { text, vector: opts.vector ?? null });
  const vote = voteFiles({ tasks, workflows, allowed: allowedBy(r, rules), nameMatch: nameMatcher(memory, ref, text) });
  const first = firstActionOf({ request: r, vote, patterns, policies, rules });
  const result: Omit<Plan, 'uncertainty'> = {
    request: r,
    workflows,
    archived,
    patterns,
    policies,
    rules,
    ranking,
    selected_tool: selected?.tool ?? null,
    first_action: first,
    tasks,
    vote,
  };
  return { ...result, uncertainty: uncertaintyOf({ ...result, tasks: tasks.length, loading: opts.loading ?? null }) };
}
