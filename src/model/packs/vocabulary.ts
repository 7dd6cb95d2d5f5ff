/** Values of pack imports (docs/packs.md): an import's status, and what kind of item a conflict is about. */

export const PACK_IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type PackImportStatus = (typeof PACK_IMPORT_STATUSES)[number];

/** What a conflict of an import is about (records of version-1 imports name no kind: a node). */
export const PACK_CONFLICT_KINDS = ['node', 'cold_payload', 'playbook_version', 'automation'] as const;
export type PackConflictKind = (typeof PACK_CONFLICT_KINDS)[number];
