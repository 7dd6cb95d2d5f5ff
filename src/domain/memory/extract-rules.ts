/**
 * The text rules behind execution_native_v1 (see extract.ts and docs/memory.md). Plain regular
 * expressions, chosen to be precise rather than exhaustive: a false signal would teach the
 * learning layer something the agent never did.
 */

export type Outcome = 'success' | 'failure' | 'partial';

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
const TEST_RUNNERS = /^(?:npm (?:run )?test|pnpm (?:run )?test|yarn (?:run )?test|npx (?:vitest|jest|mocha|playwright)|vitest|jest|mocha|pytest|python3? -m pytest|go test|cargo test|node --test|rspec|phpunit|mvn test|gradle test|\.\/gradlew test|dotnet test|mix test|bundle exec rspec|tox|bazel test)\b/;

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
 * "grep" → grep, "tool: X" / "using the X tool" → X, and each marked command's tool (test or bash).
 */
const READ_RE = /\bread\s+(?=[\w./-]*[/.][\w])/gi;
const EDIT_RE = /\b(?:edit|edited|editing)\b/gi;
const GREP_RE = /\b(?:grep|grepped|grepping)\b/gi;
const NAMED_TOOL_RE = /\btool\s*[:=]\s*([A-Za-z][\w.-]{0,40})|\busing (?:the )?([A-Za-z][\w.-]{0,40}) tool\b/gi;

export function extractTools(text: string, commands: FoundCommand[]): string[] {
  const found: { at: number; tool: string }[] = [];
  for (const m of text.matchAll(READ_RE)) found.push({ at: m.index!, tool: 'read' });
  for (const m of text.matchAll(EDIT_RE)) found.push({ at: m.index!, tool: 'edit' });
  for (const m of text.matchAll(GREP_RE)) found.push({ at: m.index!, tool: 'grep' });
  for (const m of text.matchAll(NAMED_TOOL_RE)) found.push({ at: m.index!, tool: (m[1] ?? m[2])!.toLowerCase() });
  for (const c of commands) {
    const at = text.indexOf(c.command);
    found.push({ at: at < 0 ? text.length : at, tool: c.tool });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.tool);
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
  { re: /\b(?:connect |listen |open |read |write )?(E(?:CONNREFUSED|CONNRESET|ADDRINUSE|NOENT|ACCES|PERM|TIMEDOUT|PIPE|NOTFOUND|EXIST|ISDIR|MFILE))\b[^\n.]{0,80}/g, cls: (m) => m[1]! },
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
  const scope = seg ? seg[1]! : (text.trim().split(/(?<=[.!?])\s+/).pop() ?? '');
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
