/** Small readers of open values (slots, metadata, activity payloads) shared by the families. */

/** `v` when it is a plain object, else an empty one: slots and metadata are open JSON, read without trusting their shape. */
export const asObject = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** `s` with every regular-expression metacharacter escaped, to match it literally inside a RegExp. */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
