/**
 * What `airlock audit` needs, without the extension (and its secret scanner): reading and checking
 * logs only needs the file format.
 */
export { verifyAuditLog, type Break, type BreakKind, type VerifyReport, type VerifyResult, type VerifiedFile } from './verify.js';
export { followAuditLog, tailAuditLog, formatRecord, type TailLine, type TailResult } from './tail.js';
export { defaultAuditPath, headsDir, resolveAuditPath, stateDir, projectRoot, type LocationEnv } from '@airlock/audit-format';
export { Head, headPathFor, readHead, realLogPath, type HeadRead } from './head.js';
export { GENESIS, lineHash } from '@airlock/audit-format';
export type { AuditRecord } from './record.js';
