/**
 * @airlock/toolkit — the pure helpers tools, hosts and extensions share at run time: truncation,
 * spill files and images (`output/`), the shapes of tools for model providers (`providers/`), the
 * error catalogue, closest-name suggestions, and the small combiners a host keeps its services in.
 * Subpaths: `@airlock/toolkit/util` (path, errno, schema and pattern helpers) and
 * `@airlock/toolkit/display` (showing untrusted text to a person).
 */

// Output: truncation, spill, images.
export { DEFAULT_LIMITS, NOTICE_ROOM, countLines, formatSize, resolveLimits, truncateHead, truncateTail, utf8ByteLength } from './output/truncate.js';
export { appendNotice, headNotice, lineTooLongNotice, moreLinesNotice, tailNotice, truncationNotice } from './output/notice.js';
export { createTailAccumulator } from './output/tail-accumulator.js';
export { createTruncationService, noticingCuts } from './output/truncation-service.js';
export { createSpillStore, DEFAULT_SPILL_BUDGET_BYTES, DEFAULT_SPILL_RETENTION_MS, DEFAULT_SPILL_TOTAL_BYTES, SpillStore } from './output/spill-store.js';
export { DEFAULT_IMAGE_LIMITS, describeImage, imageDataProblem, imageNote, sniffBase64ImageMime, sniffConvertibleMime, sniffImageMime, type ConvertibleMime, type ImageInfo, type ImageLimits, type ImageMime } from './output/images.js';
export { FileMutationQueue } from './file-mutation-queue.js';

// The shapes of tools for model providers.
export * from './providers/index.js';
export { jsonProblem } from './json-value.js';

// Diagnostics.
export { AirlockError, AirlockErrors, describeOrigin, isAirlockError, kernelError, type AirlockErrorCode, type SelectionUnknownToolDetails } from './errors.js';
export { errorCode, errorCodes, registerErrorCodes, renderErrorCatalogue, type ErrorCodeEntry, type ErrorCodeSpec } from './error-catalogue.js';
export { closestNames } from './suggest.js';

// The combiners a host keeps the services of its extensions in (see HostServices in @airlock/host).
export { AccessChecks } from './services/access-checks.js';
export { hostAllowed, SandboxProfiles } from './services/sandbox-profiles.js';
export { redactionError, TextRedactors } from './services/text-redactors.js';
export { EventListeners } from './services/event-listeners.js';
export { HostServices } from './services/host-services.js';
