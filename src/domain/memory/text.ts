/** Text helpers for node content. */

export const SUMMARY_MAX_CHARS = 280;

/**
 * The short form of a text that survives archiving: the text itself when short, else its first
 * sentences up to SUMMARY_MAX_CHARS, cut at a word boundary and marked with "…".
 */
export function deriveSummary(text: string, max = SUMMARY_MAX_CHARS): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const sentence = cut.lastIndexOf('. ');
  if (sentence >= max * 0.5) return `${cut.slice(0, sentence + 1)}…`;
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.5 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
