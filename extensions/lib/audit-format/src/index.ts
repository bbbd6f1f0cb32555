// The audit log's on-disk contract, shared by the extension that writes it (audit-log) and those
// that read or export it (telemetry): the canonical JSON of a record, the hash chain, and where a
// project's log lives. One place, so a reader can never hash or look differently from the writer.
export { canonicalJson, sha256Hex } from './canonical.js';
export { GENESIS, HASH_PATTERN, lineHash } from './chain.js';
export { defaultAuditPath, headsDir, projectRoot, resolveAuditPath, stateDir, type LocationEnv } from './location.js';
