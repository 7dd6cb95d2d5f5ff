/**
 * Secrets out of everything a hook stores: tool inputs and outputs, commands, prompts. Applied
 * before anything leaves the hook (to Lore, or to its state file). It errs towards redacting:
 * a redacted word in a recorded step costs little, a stored token costs a lot.
 */

export const REDACTED = '[REDACTED]';

/** Names whose values are secrets, as env-like keys or object fields (API_KEY, githubToken, db_password …). */
const SECRET_NAME =
  /(pass(word|wd|phrase)?|pwd|secret|token|api[-_]?key|apikey|access[-_]?key|private[-_]?key|client[-_]?secret|credential|auth(orization)?|session[-_]?key|cookie|signature)$/i;
// `tokens` (max_tokens, total_tokens) are counts, not secrets.
const SECRET_NAME_ANYWHERE = /(password|passwd|secret|token(?!s)|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credential)/i;

const isSecretName = (name: string) => SECRET_NAME.test(name) || SECRET_NAME_ANYWHERE.test(name);

const HEADER_NAMES = /^(authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token)$/i;

const PATTERNS: [RegExp, string | ((...m: string[]) => string)][] = [
  // PEM private keys, whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // Authorization headers in any spelling (curl -H, raw HTTP, JSON-ish): the credentials after the scheme.
  [
    /(\bauthorization\b["']?\s*[:=]\s*["']?)(?:(bearer|basic|token|digest)\s+)?[^\s"',;]+/gi,
    (_m, lead: string, scheme?: string) => `${lead}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  ],
  // Other credential-bearing headers.
  [/(\b(?:x-api-key|api-key|x-auth-token|cookie|set-cookie)\b["']?\s*[:=]\s*["']?)[^\n"']+/gi, (_m, lead: string) => `${lead}${REDACTED}`],
  // Well-known token formats.
  [
    /\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,})\b/g,
    REDACTED,
  ],
  // JSON web tokens.
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // Credentials in URLs: scheme://user:password@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, (_m, lead: string) => `${lead}${REDACTED}@`],
  // env-like KEY=value and --password=value / --token value where the name says secret.
  [/(\b[A-Za-z_][A-Za-z0-9_.-]*)(\s*=\s*)("[^"]*"|'[^']*'|[^\s'"&;|]+)/g, (m, name: string, eq: string) => (isSecretName(name) ? `${name}${eq}${REDACTED}` : m)],
  [/(--?[A-Za-z0-9-]*(?:password|passwd|token|secret|api-?key)[A-Za-z0-9-]*)(\s+|=)("[^"]*"|'[^']*'|[^\s'"]+)/gi, (_m, flag: string, sep: string) => `${flag}${sep}${REDACTED}`],
  // "password": "…" / password: … in JSON or YAML text (headers were handled above).
  [
    /(["']?)([A-Za-z_][A-Za-z0-9_-]*)\1(\s*:\s*)("[^"]*"|'[^']*'|[^\s,}]+)/g,
    (m, q: string, name: string, colon: string, value: string) =>
      isSecretName(name) && !HEADER_NAMES.test(name) && !value.includes(REDACTED) ? `${q}${name}${q}${colon}"${REDACTED}"` : m,
  ],
];

export function redactText(text: string): string {
  let out = text;
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement as never);
  return out;
}

/** A JSON value with secret-named fields blanked and every string passed through redactText. */
export function redactValue<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = isSecretName(k) && (typeof v === 'string' || typeof v === 'number') ? REDACTED : redactValue(v, depth + 1);
  }
  return out as T;
}
