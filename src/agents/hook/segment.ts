import type { TurnEnd } from './state';

/**
 * Does a prompt continue the task the session is working on, or start new work? A coding session
 * is a conversation: "fix the flaky checkout test", then "yes", "try again with the clock pinned",
 * "now run the whole suite" is one task steered over four prompts, and learning needs it as one
 * execution whose goal is the first prompt, not four whose goals are "yes" and "try again".
 *
 * The method (docs/agents.md, "Tasks, not prompts") reads two things of the prompt, neither tuned
 * to any recorded session:
 *
 * - whether it *depends* on the conversation so far: a reply (yes / no / ok / go ahead), a
 *   request to go on (again, retry, continue, instead, still …), or a pronoun pointing back (it,
 *   that, them …). These are closed classes of English discourse words, the way a reader tells a
 *   reply from a request; open-class words (what a task is about) play no part in them.
 * - its *subject*: the content words left after function words and generic software-work words
 *   (run, test, fix, file, error …) are removed, compared with the running task's vocabulary,
 *   which is built from its prompts and from what it actually touched (path segments of its
 *   files, the identifiers of the code it wrote, its commands, its error signatures). A prompt
 *   naming a file the task touched, or sharing its words, is the same subject.
 *
 * and the session's state: how the last turn ended (after a success a self-contained request is
 * new work; after a failure it is more likely a steer), whether a turn is still running (a prompt
 * typed over a running turn corrects it), and how long the session was idle.
 */

export interface RunningTask {
  /** The task's goal (its starting prompt, refined). */
  goal: string;
  /** Terms of its prompts, files, commands and errors (termsOf / pathTerms). */
  vocabulary: readonly string[];
  /** Project-relative paths it touched. */
  files: readonly string[];
  /** How its latest finished turn ended; null while its first turn runs. */
  lastTurn: TurnEnd | null;
  /** A turn is running (its prompt was seen, its Stop not yet). */
  turnOpen: boolean;
  /** Time since the session's last event. */
  idleMs: number;
}

export type Rule = 'no_task' | 'explicit_new' | 'goes_on' | 'reply' | 'same_subject' | 'refines_goal' | 'idle' | 'new_subject' | 'follow_up';

export interface Verdict {
  continues: boolean;
  rule: Rule;
  /** The prompt's subject terms. */
  terms: string[];
  /** Those not in the running task's vocabulary. */
  novel: string[];
}

/** A session idle this long has moved on: a prompt that does not depend on the conversation starts new work. */
export const IDLE_NEW_TASK_MS = 3 * 3_600_000;

// Closed-class English: function words, and the generic vocabulary of software work — words any
// coding request uses, so they say nothing about which task it is.
const FUNCTION_WORDS = words(`
a about above after again against all also am an and any are as at be because been before being below between both but by can
could did do does doing down during each either else even ever every few for from further had has have having he her here hers him his
how i if in into is its itself just least less let lets like may me might mine more most much must my myself neither no nor not now of off
on once one only or other our ours out over own per please quite rather really same shall she should since so some such than that the their
theirs them themselves then there these they this those though through thus to too under until up upon us very via was we well were what
whatever when where whether which while who whom whose why will with within without would yet you your yours whole entire
hi hello hey ahead sounds sense quite works im ive youre dont doesnt didnt cant wont isnt arent wasnt shouldnt couldnt wouldnt thats whats lets theres heres its
`);

const GENERIC_WORK = words(`
add added adding build builds building bug bugs change changes changed check checks checking ci code codes command commands commit
commits create debug do done error errors failing fail fails failure file files fix fixed fixes fixing function functions get go got help
implement issue issues it job look looks make makes making method methods need needs new ok output pass passes passing problem problems project
pr push repo run runs running script see set show step steps stuff suite test tests testing thing things try tried trying update updated use
used using want way work works working write written line lines code thanks thank
src lib spec specs app pkg internal cmd dist index main mod util utils ts js tsx jsx mjs cjs py go rs java rb md json yaml yml toml
flaky flakey intermittent slow broken wrong missing bad better unused dead old small big simple quick minor major typo
cleanup clean refactor refactoring rename tidy improve keep carry explain describe tell list find investigate review summarize summarise document
`);

/** Replies: the prompt answers the agent rather than stating a task. */
const REPLY_START = words(`yes yeah yep yup ya yah sure ok okay k kk no nope nah right correct exactly agreed indeed fine good great perfect nice cool thanks thank lgtm done`);
const REPLY_PHRASES = [
  'go ahead',
  'do it',
  'do that',
  'sounds good',
  'looks good',
  'makes sense',
  'not quite',
  'that works',
  'go for it',
  'ship it',
  'same thing',
  'keep going',
  'carry on',
  'go on',
];
/** Asking to go on with, redo or change what was being done: as the first word, or anywhere. */
const GOES_ON_START = words(`continue resume retry redo proceed`);
const GOES_ON = words(`again instead still anymore either undo revert`);
/** Pronouns and adverbs that point back into the conversation. */
const ANAPHORA = words(`it that this these those them they there same above previous earlier yours`);
/** Saying outright that what comes is other work. */
const NEW_WORK_PHRASES = [
  'new task',
  'another task',
  'different task',
  'next task',
  'separate task',
  'new feature',
  'another thing',
  'something else',
  'something different',
  'unrelated',
  'switch to',
  'switching to',
  'moving on',
  'move on to',
  'different topic',
  'different issue',
  'another issue',
  'never mind',
  'nevermind',
  'forget that',
  'forget it',
];

function words(list: string): Set<string> {
  return new Set(list.split(/\s+/).filter(Boolean));
}

/** Lower-cased words of a text (letters and digits, accents folded, apostrophes dropped). */
function tokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** A light English stemmer: enough that "tests"/"test", "pinned"/"pin", "mocking"/"mock" meet. */
export function stem(w: string): string {
  if (w.length <= 3 || /^\d+$/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('ing') && s.length >= 5 && /[aeiouy]/.test(s.slice(0, -3))) s = s.slice(0, -3);
  else if (s.endsWith('ed') && s.length > 4 && /[aeiouy]/.test(s.slice(0, -2))) s = s.slice(0, -2);
  else if (s.endsWith('es') && /(ss|x|ch|sh)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1);
  // pinned → pinn → pin, running → runn → run
  if (/([b-df-hj-np-tv-z])\1$/.test(s) && !/(ll|ss|zz)$/.test(s)) s = s.slice(0, -1);
  return s;
}

const notSubject = (w: string) =>
  w.length > 1 && !FUNCTION_WORDS.has(w) && !GENERIC_WORK.has(w) && !REPLY_START.has(w) && !GOES_ON_START.has(w) && !GOES_ON.has(w) && !ANAPHORA.has(w) && !/^\d+$/.test(w);
/** A word that says what a task is about: neither it nor its stem is a function, generic work or discourse word. */
const isSubjectWord = (w: string) => notSubject(w) && notSubject(stem(w));

/** The subject terms of a text: content words, stemmed, without function and generic work words. */
export function termsOf(text: string): string[] {
  const out = new Set<string>();
  // A file name's extension is not a subject (worker.ts → worker).
  for (const w of tokens(text.replace(/\b([\w-]+)\.[a-z0-9]{1,6}\b/gi, '$1'))) if (isSubjectWord(w)) out.add(stem(w));
  return [...out];
}

const FILE_EXTENSIONS = /\.(?:[a-z0-9]{1,6})$/i;

/** Terms of a path: its directory and file names split into words (src/checkout/cartTotals.test.ts → checkout, cart, total). */
export function pathTerms(path: string): string[] {
  const segments = path.split(/[\\/]/).filter((s) => s && s !== '.' && s !== '..');
  return termsOf(segments.map((s) => s.replace(FILE_EXTENSIONS, '').replace(/[._-]+/g, ' ')).join(' '));
}

/** File names a prompt mentions (`checkout.test.ts`, `src/clock.ts`), lower-cased. */
function mentionedFiles(prompt: string): string[] {
  return (prompt.match(/[\w@./\\-]*\w\.[a-z0-9]{1,6}\b/gi) ?? []).map((f) => f.toLowerCase().split(/[\\/]/).pop()!).filter(Boolean);
}

const baseName = (p: string) => p.toLowerCase().split(/[\\/]/).pop() ?? '';

function startsWithReply(toks: string[], lower: string): boolean {
  if (toks.length === 0) return false;
  if (REPLY_START.has(toks[0]!)) return true;
  return REPLY_PHRASES.some((p) => lower.startsWith(p));
}

/** Is an informative goal: has a subject of its own. */
export const isInformative = (text: string) => termsOf(text).length > 0;

/**
 * The verdict for one prompt. Rules in order, the first that applies decides (docs/agents.md):
 *   no task running → new; an explicit new-work phrase → new; a request to go on (retry …,
 *   continue …, or again, instead, still … anywhere) → continue; the same subject (a touched
 *   file named, or at least half its subject terms known — a third after a failure, an
 *   interrupted turn or over a running one) → continue; a running task whose goal has no
 *   subject yet ("continue", "hi") → this prompt refines it; a reply (yes, ok, go ahead …)
 *   without a new subject of its own → continue; idle for IDLE_NEW_TASK_MS after a finished
 *   turn → new; a self-contained request (enough novel subject terms: 1 after a turn that
 *   succeeded or used no tools, 3 after a failure, an interrupted turn or over a running one,
 *   one more when it answers or points back with a pronoun) → new; anything else (a short
 *   follow-up such as "now run the whole suite") → continue.
 */
export function classifyPrompt(prompt: string, task: RunningTask | null, idleNewTaskMs = IDLE_NEW_TASK_MS): Verdict {
  const lower = prompt.toLowerCase().replace(/\s+/g, ' ').trim();
  const toks = tokens(prompt);
  const terms = termsOf(prompt);
  if (!task) return { continues: false, rule: 'no_task', terms, novel: terms };
  const known = new Set(task.vocabulary);
  const novel = terms.filter((t) => !known.has(t));
  const verdict = (continues: boolean, rule: Rule): Verdict => ({ continues, rule, terms, novel });

  if (NEW_WORK_PHRASES.some((p) => new RegExp(`(^|\\W)${p}(\\W|$)`).test(lower))) return verdict(false, 'explicit_new');
  if (GOES_ON_START.has(toks[0] ?? '') || toks.some((t) => GOES_ON.has(t))) return verdict(true, 'goes_on');

  // After a turn that succeeded (or answered without tools) the user is more likely done with the
  // task; after a failure, an interruption or over a running turn, more likely steering it.
  const settled = !task.turnOpen && (task.lastTurn === 'success' || task.lastTurn === 'no_tools');
  const touched = new Set(task.files.map(baseName));
  const namesTouchedFile = mentionedFiles(prompt).some((f) => touched.has(f));
  const shared = terms.length - novel.length;
  if (namesTouchedFile || (shared > 0 && shared * (settled ? 2 : 3) >= terms.length)) return verdict(true, 'same_subject');
  if (!isInformative(task.goal) && terms.length > 0) return verdict(true, 'refines_goal');

  const pointsBack = toks.some((t) => ANAPHORA.has(t));
  const replies = startsWithReply(toks, lower);
  const needed = (settled ? 1 : 3) + (pointsBack || replies ? 1 : 0);
  // "yes" / "ok, and keep the old helper": an answer. "great, now add a CSV export to the reports
  // page": an acknowledgement, then a request with a subject of its own, judged by the rules below.
  if (replies && novel.length < needed) return verdict(true, 'reply');
  if (!task.turnOpen && task.idleMs >= idleNewTaskMs) return verdict(false, 'idle');
  if (novel.length >= needed) return verdict(false, 'new_subject');
  return verdict(true, 'follow_up');
}
