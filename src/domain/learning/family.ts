import type { ScopeRef } from '../../store/scope';
import { familyIdOf } from './distill';
import type { FamilyQuery } from './family-index';
import type { TaskRequest } from './request';
import { taskText } from './request';
import { THRESHOLDS } from './score';
import type { ScopeLearning } from './scope-state';

/**
 * Which task family a tool decision or feedback belongs to (docs/learning.md, "Task families"):
 * the family of the best-matching pattern or workflow when it matches as strongly as an
 * observation must to join a workflow (THRESHOLDS.merge), so patterns, policies and workflows of
 * one task line up; otherwise a new family named after the request.
 */

export interface ResolvedFamily {
  family_id: string;
  label: string;
  known: boolean;
  score: number;
}

export function familyQuery(r: TaskRequest): FamilyQuery {
  return { terms: r.terms, task_kind: r.task_kind, files: r.files };
}

export function findFamily(state: ScopeLearning, r: TaskRequest): ResolvedFamily | null {
  const q = familyQuery(r);
  const p = state.patterns.search(q, { minScore: THRESHOLDS.merge, merge: true, limit: 1 })[0];
  const w = state.workflows.search(q, { minScore: THRESHOLDS.merge, merge: true, limit: 1 })[0];
  if (p && (!w || p.score >= w.score)) return { family_id: p.doc.slot.family_id, label: p.doc.slot.label, known: true, score: p.score };
  if (w) return { family_id: w.doc.slot.family_id, label: w.doc.slot.goal, known: true, score: w.score };
  return null;
}

export function resolveFamily(ref: ScopeRef, state: ScopeLearning, r: TaskRequest): ResolvedFamily {
  const found = findFamily(state, r);
  if (found) return found;
  const label = taskText(r) || r.task_kind || 'task';
  return { family_id: familyIdOf(ref, `request:${r.task_kind ?? ''}|${r.terms.join(' ')}|${r.file_path ?? ''}`), label: label.slice(0, 200), known: false, score: 0 };
}
