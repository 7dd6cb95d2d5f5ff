import { extractCommands, extractErrors, extractFilePaths, extractToolMentions } from '../memory/extract-rules';
import type { WorkflowStep } from './types';

/**
 * Free-text evidence (an `input_text`-only write) read as an execution (docs/learning.md, "What is
 * learned from"): the tools it names in order, each with the file named in the same clause, and
 * the task it was about. Memory's extraction finds the built-in tool vocabulary; here the scope's
 * own tool names (kickoff candidates, replay runs, feedback) are added, which memory cannot know.
 */

/** A clause ends at ";", a newline, ", " or a sentence end; "then" starts a new one. */
const CLAUSE_END = /[;\n]|[.,!?](?=\s|$)|\bthen\b/g;

function clauseBounds(text: string): number[] {
  const ends = [...text.matchAll(CLAUSE_END)].map((m) => m.index!);
  return [...ends, text.length];
}

const clauseOf = (bounds: number[], at: number) => bounds.findIndex((b) => at < b);

/**
 * The steps a text names: each tool mention in order, with the file named in its clause (the
 * first one after it, else the nearest before it); a file tool with no file in its clause takes
 * the text's first file. A clause that names files but no tool continues the list of the clause
 * before it ("edited a.ts, b.ts and c.ts": three edits), up to the end of the sentence. Null when
 * the text names no tool.
 */
export function textSteps(text: string, knownTools: Iterable<string>, fileTools: ReadonlySet<string>): WorkflowStep[] | null {
  const mentions = extractToolMentions(text, extractCommands(text), knownTools);
  if (mentions.length === 0) return null;
  const bounds = clauseBounds(text);
  const files: { at: number; path: string }[] = [];
  for (const path of new Set(extractFilePaths(text))) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(path, from);
      if (at < 0) break;
      files.push({ at, path });
      from = at + path.length;
    }
  }
  files.sort((a, b) => a.at - b.at);
  const primary = files[0]?.path ?? null;
  const steps: { at: number; step: WorkflowStep }[] = mentions.map((m) => {
    const clause = clauseOf(bounds, m.at);
    const same = files.filter((f) => clauseOf(bounds, f.at) === clause);
    const file = same.find((f) => f.at > m.at) ?? same.filter((f) => f.at < m.at).pop();
    return { at: m.at, step: { tool: m.tool, file_path: file?.path ?? (fileTools.has(m.tool) ? primary : null), next_action: null } };
  });
  // Lists: files in clauses without a tool, after a clause whose file tool they continue.
  const toolClauses = new Map<number, string>();
  for (const m of mentions) toolClauses.set(clauseOf(bounds, m.at), m.tool);
  let listTool: string | null = null;
  for (let c = 0; c < bounds.length; c += 1) {
    const own = toolClauses.get(c);
    if (own !== undefined) listTool = fileTools.has(own) ? own : null;
    else if (listTool) {
      for (const f of files.filter((x) => clauseOf(bounds, x.at) === c)) steps.push({ at: f.at, step: { tool: listTool, file_path: f.path, next_action: null } });
    }
    // Only a comma (or "and" inside the clause) keeps a list going; a sentence end, ";" or "then" ends it.
    if (text[bounds[c]!] !== ',') listTool = null;
  }
  steps.sort((a, b) => a.at - b.at);
  return steps.map((x) => x.step);
}

const TASK_SEGMENT = /\b(?:task|goal)\s*:\s*([^\n;]{3,300}?)(?=[.;](?:\s|$)|\n|$)/i;
/** Clauses that report what was done or seen rather than what the task was. */
const EVIDENCE_START =
  /^(?:then\s+)?(?:edited|editing|read|reading|ran|running|executed|opened|grepped|searched|patched|applied|used|using|via|outcome|result|status|tests?\s+(?:pass|fail|gave|green|red)|all\s+tests?|\d+\s+(?:tests?\s+)?(?:passed|failed))\b/i;
const RESULT_COUNT = /\b\d+\s+(?:tests?\s+)?(?:passed|failed|passing|failing)\b/i;

/**
 * What task a free text describes: a "Task:" / "Goal:" segment, else its first sentence without
 * the clauses that report evidence (tools, commands, results) and without paths and tool names.
 */
export function taskPhrase(text: string, knownTools: Iterable<string>): string | null {
  const seg = TASK_SEGMENT.exec(text);
  if (seg) return seg[1]!.trim();
  // A stated kind ("[bugfix]", "task_kind: bugfix.") is the kind, not the task's words.
  const body = text
    .replace(/^\s*\[[\w-]+\]/, ' ')
    .replace(/\b(?:task[_ ]kind|kind)\s*[:=]\s*`?[\w-]+`?\.?/gi, ' ')
    .trim();
  const first = /^[\s\S]{1,300}?(?:[.!?](?=\s|$)|\n|$)/.exec(body)?.[0] ?? body.slice(0, 300);
  const commands = extractCommands(first);
  const mentions = extractToolMentions(first, commands, knownTools);
  const errors = extractErrors(first).signatures;
  const clauses = first
    .split(/[;:\n]|,\s|\s[-–—]\s/)
    .map((c) => c.trim())
    .filter(Boolean);
  const kept = clauses.filter((c) => {
    if (EVIDENCE_START.test(c) || RESULT_COUNT.test(c)) return false;
    if (commands.some((x) => c.includes(x.command)) || errors.some((e) => c.includes(e))) return false;
    return true;
  });
  const toolNames = new Set(mentions.map((m) => m.tool));
  const strip = (s: string) => {
    let out = s;
    for (const p of extractFilePaths(s)) out = out.split(p).join(' ');
    for (const t of toolNames) if (/[_\d]/.test(t)) out = out.replace(new RegExp(`(?<!\\w)${t.replace(/\./g, '\\.')}(?!\\w)`, 'gi'), ' ');
    return out
      .replace(/\s+/g, ' ')
      .replace(/^[\s.,;:]+|[\s.,;:]+$/g, '')
      .trim();
  };
  const phrase = strip(kept.join(', '));
  return phrase.split(' ').filter((w) => /\w/.test(w)).length >= 2 ? phrase.slice(0, 300) : null;
}
