import { escapeRegExp } from '../values';

/**
 * The text rules behind execution_native_v1 (see extract.ts and docs/memory.md). Plain regular
 * expressions, chosen to be precise rather than exhaustive: a false signal would teach the
 * learning layer something the agent never did.
 */

import type { ExecutionOutcome } from '../../model/memory/vocabulary';

export type Outcome = ExecutionOutcome;

const CODE_EXT =
  'ts|tsx|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|kts|rb|php|cs|cpp|cc|cxx|c|h|hpp|swift|scala|sql|json|jsonl|yaml|yml|toml|md|rst|sh|bash|zsh|css|scss|less|html|vue|svelte|lock|cfg|ini|env|txt|proto|gradle|xml|csv|ipynb|tf|dockerfile';

/**
 * A path with at least one directory and an extension ("src/a/b.ts", "./lib/x.js", "/etc/app.yaml"),
 * or a bare file name with a known code extension ("handler.ts", "test_x.py"). Not preceded by a
 * word character, ':' or '/', so URLs ("https://host/a.js") and host:port pairs do not match.
 */
const PATH_RE = new RegExp(
  String.raw`(?<![\w@:/.\\-])((?:\.{1,2}/|/)?(?:[\w@+-][\w.@+-]*/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}|[\w-][\w.-]*\.(?:${CODE_EXT}))(?![\w/])`,
  'g',
);
/** "Node.js", "Vue.js": product names, not files. */
const PRODUCT_JS = /^[A-Z][a-z]+\.js$/;

export function extractFilePaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PATH_RE)) {
    const p = m[1]!;
    if (PRODUCT_JS.test(p) || p.length > 300) continue;
    out.push(p);
  }
  return out;
}

/** Programs a command may start with. Risky English words (go, make, find, cat) need a trigger anyway. */
const HEADS = new Set(
  (
    'npm npx pnpm yarn node deno bun tsc tsx jest vitest mocha ava pytest python python3 pip pip3 poetry uv go cargo rustc ' +
    'make cmake ninja git docker podman kubectl helm terraform bash sh zsh mvn gradle ./gradlew gradlew java javac dotnet ' +
    'ruby rspec bundle rake rails php composer phpunit curl wget grep rg sed awk ls cat find psql mysql sqlite3 redis-cli ' +
    'mix elixir swift xcodebuild flutter dart gh lore eslint prettier ruff mypy black flake8 tox nox bazel'
  ).split(' '),
);
const TEST_RUNNERS =
  /^(?:npm (?:run )?test|pnpm (?:run )?test|yarn (?:run )?test|npx (?:vitest|jest|mocha|playwright)|vitest|jest|mocha|pytest|python3? -m pytest|go test|cargo test|node --test|rspec|phpunit|mvn test|gradle test|\.\/gradlew test|dotnet test|mix test|bundle exec rspec|tox|bazel test)\b/;

export interface FoundCommand {
  command: string;
  /** The tool the command stands for: `test` for test runners after "ran", else `bash`. */
  tool: 'test' | 'bash';
}

/**
 * Commands are taken only where the text marks them as commands: inside backticks, after a shell
 * prompt ("$ "), or after a trigger ("ran", "run", "running", "executed", "command:", "cmd:",
 * "bash:", "shell:"), and only when the first word is a known program. A command ends at a
 * sentence end (". " or end of line), a ", " / "; " / ": " separator, a closing backtick or parenthesis.
 */
const TRIGGERED = /(?:^|[\s(])(ran|run|running|executed|execute|command:|cmd:|bash:|shell:|\$)\s+`?([^\n`]{1,300}?)`?(?=[.;,:](?:\s|$)|[\n`)]|$)/gim;
const BACKTICKED = /`([^`\n]{2,300})`/g;

function headOf(cmd: string): string {
  return cmd.split(/\s+/, 1)[0]!.toLowerCase();
}

export function extractCommands(text: string): FoundCommand[] {
  const out: FoundCommand[] = [];
  const seen = new Set<string>();
  const add = (raw: string, trigger: string | null) => {
    const command = raw.trim().replace(/^\$\s+/, '');
    if (command.length < 2 || seen.has(command) || !HEADS.has(headOf(command))) return;
    seen.add(command);
    const isRan = trigger !== null && /^(ran|run|running|executed|execute)$/i.test(trigger);
    out.push({ command, tool: isRan && TEST_RUNNERS.test(command) ? 'test' : 'bash' });
  };
  for (const m of text.matchAll(TRIGGERED)) add(m[2]!, m[1]!);
  for (const m of text.matchAll(BACKTICKED)) add(m[1]!, null);
  return out;
}

/**
 * Tools an agent used, named by the narrative: "read <path>" → read, "edit/edited" → edit,
 * "grep" → grep, "tool: X" / "using the X tool" → X, each marked command's tool (test or bash),
 * and tool names: the built-in vocabulary of common coding-agent tools (AGENT_TOOLS) plus any
 * `known` names the caller passes (learning passes the names its scope has seen). A name that is a
 * plain word (read, test, search) counts only in a tool context ("with X", "using X", "via X",
 * "called X", "X tool", or `X` in backticks); a distinctive name (apply_patch, run_tests, bash,
 * anything with `_`, `-`, `.` or a digit) counts wherever it stands as a whole identifier. A verb
 * followed in the same clause by "with/using/via <tool>" ("edited a.ts with apply_patch") is one
 * action: the named tool, at the verb's place.
 */
const READ_RE = /\bread\s+(?=[\w./-]*[/.][\w])/gi;
const EDIT_RE = /\b(?:edit|edited|editing)\b/gi;
const GREP_RE = /\b(?:grep|grepped|grepping)\b/gi;
const NAMED_TOOL_RE = /\btool\s*[:=]\s*([A-Za-z][\w.-]{0,40})|\busing (?:the )?([A-Za-z][\w.-]{0,40}) tool\b/gi;

/** Tool names of common coding agents (Claude Code, Codex, Cursor, Aider, SWE-agent, OpenHands, …), lowercased. */
export const AGENT_TOOLS: readonly string[] = (
  'read edit write bash grep glob ls view apply_patch str_replace str_replace_editor str_replace_based_edit_tool ' +
  'run_tests run_test read_file write_file edit_file create_file multi_edit multiedit list_files list_dir ' +
  'search_files find_files file_search grep_search codebase_search run_terminal_cmd run_command exec_command ' +
  'shell_command execute_command web_search web_fetch webfetch websearch notebook_edit todo_write task'
).split(' ');

/** A name that is also an ordinary English word needs a tool context to count. */
const isDistinctive = (name: string) => /[_\-.\d]/.test(name) || name === 'bash' || name === 'grep';

/** Text between two positions crosses a clause boundary (sentence end, ";", newline). */
const CLAUSE_BREAK = /[;\n]|[.!?](?=\s|$)/;

export interface ToolMention {
  /** Where the action is named in the text (the verb's place for "edited x with apply_patch"). */
  at: number;
  tool: string;
}

export function extractToolMentions(text: string, commands: FoundCommand[], known: Iterable<string> = []): ToolMention[] {
  const found: (ToolMention & { verb?: boolean })[] = [];
  const taken = new Set<number>();
  const push = (at: number, tool: string, verb = false) => {
    if (taken.has(at)) return;
    taken.add(at);
    found.push({ at, tool, verb });
  };
  for (const m of text.matchAll(READ_RE)) push(m.index!, 'read', true);
  for (const m of text.matchAll(EDIT_RE)) push(m.index!, 'edit', true);
  for (const m of text.matchAll(GREP_RE)) push(m.index!, 'grep', true);
  for (const m of text.matchAll(NAMED_TOOL_RE)) {
    const name = (m[1] ?? m[2])!;
    push(m.index! + m[0].indexOf(name), name.toLowerCase());
  }
  const names = [...new Set([...AGENT_TOOLS, ...[...known].map((k) => k.trim().toLowerCase())])].filter((n) => /^[a-z][\w.-]{0,40}$/.test(n));
  for (const name of names) {
    const anywhere = isDistinctive(name);
    const re = new RegExp(String.raw`(?<![\w./-])(\`?)${escapeRegExp(name)}\1(?![\w/-]|\.\w)`, 'gi');
    for (const m of text.matchAll(re)) {
      const before = text.slice(Math.max(0, m.index! - 16), m.index!);
      const after = text.slice(m.index! + m[0].length, m.index! + m[0].length + 6);
      const inContext = m[1] === '`' || /\b(?:with|using|via|called|calling|invoked|ran|run)\s+(?:the\s+)?$/i.test(before) || /^\s+tool\b/i.test(after);
      // "bash: npm test" is a command trigger: the command below stands for the tool.
      if (/^\s*:/.test(after) && (name === 'bash' || name === 'shell')) continue;
      if (anywhere || inContext) push(m.index! + m[1]!.length, name);
    }
  }
  for (const c of commands) {
    const at = text.indexOf(c.command);
    push(at < 0 ? text.length : at, c.tool);
  }
  found.sort((a, b) => a.at - b.at);
  // "edited x with apply_patch": the verb and the tool are one action, at the verb's place.
  const out: (ToolMention & { verb?: boolean })[] = [];
  for (const f of found) {
    const prev = out[out.length - 1];
    if (prev?.verb && !f.verb) {
      const between = text.slice(prev.at, f.at);
      if (!CLAUSE_BREAK.test(between) && /\b(?:with|using|via)\s+(?:the\s+)?`?$/i.test(between)) {
        out[out.length - 1] = { at: prev.at, tool: f.tool };
        continue;
      }
    }
    out.push(f);
  }
  return out.map((f) => ({ at: f.at, tool: f.tool }));
}

export function extractTools(text: string, commands: FoundCommand[], known: Iterable<string> = []): string[] {
  return extractToolMentions(text, commands, known).map((f) => f.tool);
}

/**
 * A task kind the text states: a "task_kind: X" / "kind: X" segment, or a bracketed prefix
 * ("[bugfix] …"). Never guessed from the words: a wrong kind costs a match more than none.
 */
const KIND_SEGMENT = /(?:^|[\s([])(?:task[_ ]kind|kind)\s*[:=]\s*`?([A-Za-z][\w-]{1,40})/i;
const KIND_PREFIX = /^\s*\[([A-Za-z][\w-]{1,40})\]/;

export function extractTaskKind(text: string): string | null {
  const m = KIND_SEGMENT.exec(text) ?? KIND_PREFIX.exec(text);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * Error signatures: the error line as written (up to the end of its sentence, ≤ 200 chars), and
 * its class (TypeError, E0502, TS2345, ECONNREFUSED, panic, FAIL, …).
 */
const END = String.raw`(?=\.(?:\s|$)|\n|$)`;
const ERROR_RES: { re: RegExp; cls: (m: RegExpMatchArray) => string }[] = [
  { re: new RegExp(String.raw`\b([A-Z][A-Za-z0-9]*(?:Error|Exception))(?::[ \t]*[^\n]{0,200}?)?${END}`, 'g'), cls: (m) => m[1]! },
  { re: new RegExp(String.raw`(?<![\w.])Error:[ \t]*[^\n]{1,200}?${END}`, 'g'), cls: () => 'Error' },
  { re: new RegExp(String.raw`\berror\[(E\d{4})\]:[^\n]{0,200}?${END}`, 'g'), cls: (m) => m[1]! },
  { re: new RegExp(String.raw`\b(TS\d{4}):[^\n]{0,200}?${END}`, 'g'), cls: (m) => m[1]! },
  { re: new RegExp(String.raw`\b(panic|fatal error):[^\n]{0,200}?${END}`, 'g'), cls: (m) => m[1]! },
  { re: /--- (FAIL): \S+(?: \([\d.]+s\))?/g, cls: (m) => m[1]! },
  { re: /\btest \S+ \.\.\. (FAILED)/g, cls: (m) => m[1]! },
  {
    re: /\b(?:connect |listen |open |read |write )?(E(?:CONNREFUSED|CONNRESET|ADDRINUSE|NOENT|ACCES|PERM|TIMEDOUT|PIPE|NOTFOUND|EXIST|ISDIR|MFILE))\b[^\n.]{0,80}/g,
    cls: (m) => m[1]!,
  },
  { re: /\b(context deadline exceeded|segmentation fault|deadlock|out of memory|Timeout of \d+ms exceeded)\b/gi, cls: (m) => m[1]!.toLowerCase().replace(/\d+/g, 'N') },
];

export function extractErrors(text: string): { signatures: string[]; classes: string[] } {
  const found: { at: number; sig: string; cls: string; inner: boolean }[] = [];
  for (const { re, cls } of ERROR_RES) {
    for (const m of text.matchAll(re)) {
      const sig = m[0].trim().slice(0, 200);
      // A match inside an earlier, longer one ("ECONNREFUSED" inside "Error: connect ECONNREFUSED …")
      // adds its class but not a second signature.
      const inner = found.some((f) => f.at <= m.index! && m.index! + sig.length <= f.at + f.sig.length);
      found.push({ at: m.index!, sig, cls: cls(m), inner });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return {
    signatures: [...new Set(found.filter((f) => !f.inner).map((f) => f.sig))].slice(0, 10),
    classes: [...new Set(found.map((f) => f.cls))].slice(0, 10),
  };
}

const SUCCESS = /\b(passed|passing|passes|green|fixed|succeeded|successful|successfully|success|resolved|works|working|merged|completed|done)\b/gi;
const FAILURE = /\b(failed|failing|fails|failure|broke|broken|breaks|reverted|blocked|abandoned|crashed|crashes|regression|timed out)\b/gi;
const PARTIAL = /\b(partial|partially|workaround|follow-up|still failing|some tests)\b/gi;
const OUTCOME_SEGMENT = /\b(?:outcome|result|status)\s*:\s*([^\n]{1,300})/i;

/**
 * The outcome a text states. Looks at an "Outcome:" / "Result:" / "Status:" segment when there is
 * one, else at the last sentence, and only when the text carries execution signals (commands,
 * files, errors, tools) or such a segment: conversation ("it's done!") is not an execution outcome.
 * partial words → partial; success and failure words together → partial; else whichever is present.
 */
export function inferOutcome(text: string, hasSignals: boolean): { outcome: Outcome | null; words: string[] } {
  const seg = OUTCOME_SEGMENT.exec(text);
  if (!seg && !hasSignals) return { outcome: null, words: [] };
  const scope = seg
    ? seg[1]!
    : (text
        .trim()
        .split(/(?<=[.!?])\s+/)
        .pop() ?? '');
  const words = (re: RegExp) => [...scope.matchAll(re)].map((m) => m[1]!.toLowerCase());
  const s = words(SUCCESS);
  const f = words(FAILURE);
  const p = words(PARTIAL);
  const all = [...new Set([...p, ...f, ...s])];
  if (p.length > 0 || (s.length > 0 && f.length > 0)) return { outcome: 'partial', words: all };
  if (f.length > 0) return { outcome: 'failure', words: all };
  if (s.length > 0) return { outcome: 'success', words: all };
  return { outcome: null, words: [] };
}
