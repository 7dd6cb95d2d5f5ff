import { z } from 'zod';
import { WAIT_CONDITIONS } from '../model/wait';

/** Identity and shared field rules of contract.md §1, reused by every route family. */

export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const CALLER_ID_PATTERN = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

/** Free text up to 64 KiB (counted in UTF-8 bytes); larger is payload_too_large, never truncated. */
export const MAX_TEXT_BYTES = 64 * 1024;

export const TenantId = z.string().regex(TENANT_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$');
export const ScopeName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must be printable characters');
export const Actor = z.string().min(1).max(256);

/** An id the caller chooses: run_id, playbook_id, automation_id, session_id, client_id, approval_key. */
export const CallerId = z.string().regex(CALLER_ID_PATTERN, 'must be 1-200 chars of [A-Za-z0-9._:@/+=-]');

/** Marker on a zod issue for a field over its size limit: the transport answers payload_too_large. */
export const TOO_LARGE = 'lore:payload_too_large';

/** Free text up to maxBytes of UTF-8; more is payload_too_large, never silently truncated. */
export const BoundedText = (maxBytes = MAX_TEXT_BYTES) =>
  z.string().superRefine((value, ctx) => {
    // Cheap pre-check: a string of n UTF-16 units is at most 3n UTF-8 bytes.
    if (value.length * 3 <= maxBytes) return;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > maxBytes) {
      ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes; the limit is ${maxBytes}`, params: { lore: TOO_LARGE } });
    }
  });

/**
 * How deep a request body may nest (objects and arrays). MongoDB keeps documents up to 100 levels
 * and Lore stores a caller's objects (metadata, slots, tool inputs) a few levels inside its own.
 */
export const MAX_BODY_DEPTH = 64;

/** A warning on a success response: e.g. a top-level request field this route does not know. */
export const ResponseWarning = z.object({
  code: z.string(),
  message: z.string(),
  field: z.string().optional().describe('the request field the warning is about'),
});
export const Warnings = z.array(ResponseWarning);

export const Limit = (def = 10, max = 100) => z.number().int().min(1).max(max).default(def);

export const Timestamp = z.string().describe('ISO-8601 UTC');

/** An object with one field per value of a model list, in the list's order (a list gains a value: the object gains its field). */
export const fieldsOf = <K extends string, S extends z.ZodType>(keys: readonly K[], field: () => S) => z.object(Object.fromEntries(keys.map((k) => [k, field()])) as Record<K, S>);
/** Integer counts by the values of a model list. */
export const countsOf = <K extends string>(keys: readonly K[]) => fieldsOf(keys, () => z.number().int());

/** Fields every request may carry. Reads see what the same tenant+scope wrote. */
export const identityFields = {
  tenant_id: TenantId.default('default'),
  scope: ScopeName.default('default'),
  actor: Actor.default('local-user'),
};

/** Fields every success response carries. */
export const echoFields = {
  tenant_id: z.string(),
  scope: z.string(),
};

export const ScopedInput = z.object(identityFields);
export type ScopedInput = z.output<typeof ScopedInput>;

/** Cursor pagination: an opaque cursor in, next_cursor out (null at the end). */
export const pageInputFields = {
  limit: Limit(20, 100),
  cursor: z.string().max(512).optional(),
};
export const pageOutputFields = {
  next_cursor: z.string().nullable(),
};

/** Long-polling reads of run records (runs/get of automation, playbook and sandbox runs; src/domain/runs/wait.ts). */
export const waitInputFields = {
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(30_000, 'wait_ms is at most 30000')
    .default(0)
    .describe('wait up to this long for `until` to hold; the answer comes as soon as it does, or with the current state at the deadline'),
  until: z
    .string()
    .refine(
      (s) => (WAIT_CONDITIONS as readonly string[]).includes(s) || /^[0-9a-f]{16}$/.test(s),
      `until must be ${WAIT_CONDITIONS.map((c) => `'${c}'`).join(', ')}, or a version from an earlier answer`,
    )
    .optional()
    .describe('not_queued | paused_or_done | done (the default), or a `version` from an earlier answer: any change since'),
};
export const waitOutputFields = {
  version: z.string().describe('changes whenever the run changes; pass it as `until` to wait for the next change'),
  wait: z
    .object({ until: z.string(), met: z.boolean().describe('false: the deadline passed first (the run is as shown)'), waited_ms: z.number().int() })
    .optional()
    .describe('present when wait_ms was given'),
};
