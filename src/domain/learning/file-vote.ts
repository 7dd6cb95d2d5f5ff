import { actionableWorkflows, usableStep } from './workflow-moves';
import type { WorkflowMatch } from './matches';
import type { PastTask } from './past-tasks';
import type { ExecOutcome } from './types';
import { workflowConfidence } from './workflow-model';

/**
 * Which file a task starts with, by a vote of what the scope knows (docs/learning.md, "Task
 * start"):
 *
 * - each similar past task votes for the files it worked on, weighted by its similarity, by how
 *   close it is to the best match (`sim · exp((sim − best) / (0.5·best))`: the nearest few decide,
 *   the rest break ties) and by its outcome (a stated success counts fully, an unstated one less, a
 *   failure little);
 * - a learned workflow that matches the task votes for its first move, in proportion to its
 *   relevance and how settled it is: a prior, not the only way to an answer;
 * - a file whose own name is in the task's words ("deprecate Reply#getResponseTime()" and
 *   reply.js) gets the share of its name's information the task mentions.
 *
 * A file's confidence is its share of the evidence's weight, with some doubt added (SHRINK):
 * across the git benchmark, answers of higher confidence are right more often
 * (docs/benchmarks.md).
 */

export interface FileChoice {
  file: string;
  /** The vote: what ranks the files. */
  score: number;
  /** 0..1: how likely this file is one the task works on. */
  confidence: number;
  /** The tool the evidence used first on this file, among those the caller can use (null: none known). */
  tool: string | null;
  /** The past tasks that worked on the file, best first. */
  evidence: string[];
  /** The best actionable workflow whose first move is this file. */
  workflow: WorkflowMatch | null;
}

export interface Vote {
  files: FileChoice[];
  /** How strong the best evidence is: the best past task's similarity or the best actionable workflow's relevance (0..1). */
  best: number;
}

export interface VoteInput {
  tasks: PastTask[];
  workflows: WorkflowMatch[];
  allowed: (tool: string | null) => boolean;
  /** The share of a file name's information the task's words mention (0..1). */
  nameMatch: (file: string) => number;
}

/** Neighbours that vote (the rest of the candidates only offer their files to the name match). */
const VOTERS = 10;
const TEMPERATURE = 0.5;
const NAME_WEIGHT = 0.3;
/** A past task's files beyond its target files (read along the way) count this much. */
const STEP_FILE_WEIGHT = 0.5;
/** Files of a list without named targets: the n-th (from 0) weighs 1 / (1 + LIST_DECAY·n). */
const LIST_DECAY = 0.5;
/**
 * Doubt in a confidence, as a multiple of the heaviest single piece of evidence: a single past
 * task stays at 0.4 however close it is (seen once is not learned), three equal ones that agree
 * reach 0.67. Relative, so a confidence says how much the evidence agrees, whatever its scale
 * (writes with no stated outcome weigh less, but agree as much).
 */
const SHRINK = 1.5;

const OUTCOME_WEIGHT: Record<ExecOutcome | 'unknown', number> = { success: 1, unknown: 0.7, partial: 0.5, failure: 0.3 };

const r3 = (x: number) => Math.round(x * 1000) / 1000;

interface Tally {
  score: number;
  support: number;
  tools: Map<string, number>;
  evidence: { id: string; w: number }[];
  workflow: WorkflowMatch | null;
}

/**
 * The files a past task worked on, with how much each says about it: the target files it named
 * fully, files its steps only passed through at STEP_FILE_WEIGHT; without named targets (free
 * text), the files in the order it named them, the first ones weighing most ("edited a.ts, b.ts,
 * test/a.test.ts": the work was about a.ts first).
 */
function filesOf(t: PastTask): { file: string; weight: number }[] {
  const out = new Map<string, number>();
  t.obs.target_files.forEach((f, i) => out.set(f, t.obs.targets_named ? 1 : 1 / (1 + LIST_DECAY * i)));
  for (const s of t.obs.steps) if (s.file_path && !out.has(s.file_path)) out.set(s.file_path, STEP_FILE_WEIGHT);
  return [...out].map(([file, weight]) => ({ file, weight }));
}

/** The tool a past task used first on a file, when the caller can use it. */
function toolOn(t: PastTask, file: string, allowed: (tool: string | null) => boolean): string | null {
  const onFile = t.obs.steps.find((s) => s.file_path === file && s.tool && allowed(s.tool));
  if (onFile) return onFile.tool;
  return t.obs.steps.find((s) => s.tool && allowed(s.tool))?.tool ?? null;
}

export function voteFiles(i: VoteInput): Vote {
  const tallies = new Map<string, Tally>();
  const tally = (f: string) => {
    let t = tallies.get(f);
    if (!t) tallies.set(f, (t = { score: 0, support: 0, tools: new Map(), evidence: [], workflow: null }));
    return t;
  };
  const best = i.tasks[0]?.sim ?? 0;
  let weightSum = 0;
  let heaviest = 0;
  for (const t of i.tasks.slice(0, VOTERS)) {
    const w = t.sim * Math.exp((t.sim - best) / (TEMPERATURE * best || 1)) * OUTCOME_WEIGHT[t.obs.outcome ?? 'unknown'];
    weightSum += w;
    heaviest = Math.max(heaviest, w);
    for (const { file, weight } of filesOf(t)) {
      const x = tally(file);
      x.score += w * weight;
      x.support += w * weight;
      x.evidence.push({ id: t.node_id, w: w * weight });
      const tool = t.obs.outcome === 'failure' ? null : toolOn(t, file, i.allowed);
      if (tool) x.tools.set(tool, (x.tools.get(tool) ?? 0) + w);
    }
  }
  let strongest = best;
  for (const w of actionableWorkflows(i.workflows, i.allowed)) {
    const pick = usableStep(w.entry.slot.steps, i.allowed);
    const file = pick?.step.file_path ?? w.entry.slot.target_files[0] ?? null;
    if (!file) continue;
    const x = tally(file);
    const weight = w.score * workflowConfidence(w.entry.slot);
    strongest = Math.max(strongest, w.score);
    x.score += weight;
    x.support += weight;
    if (pick?.step.tool) x.tools.set(pick.step.tool, (x.tools.get(pick.step.tool) ?? 0) + weight);
    if (!x.workflow) x.workflow = w;
    weightSum += weight;
    heaviest = Math.max(heaviest, weight);
  }
  // Every file the candidates worked on may be named by the task (not only the voters').
  for (const t of i.tasks) for (const { file } of filesOf(t)) tally(file);
  for (const [file, x] of tallies) x.score += NAME_WEIGHT * i.nameMatch(file);

  const files = [...tallies]
    .filter(([, x]) => x.score > 0)
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    .map(([file, x]): FileChoice => {
      const tool = [...x.tools].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
      return {
        file,
        score: r3(x.score),
        confidence: r3(Math.min(1, x.support / (weightSum + SHRINK * heaviest))),
        tool,
        evidence: x.evidence.sort((a, b) => b.w - a.w).map((e) => e.id),
        workflow: x.workflow,
      };
    });
  return { files, best: strongest };
}
