import type { AgentToolResult, ToolContext, TruncationResult } from '@airlock/kernel';
import { skippedDetails, skippedNotice, type SkippedDetails, type SkippedFile, type SkippedWords } from './file-gate.js';
import { unreadableDetails, unreadableNotice, type Unreadable, type UnreadableDetails } from './unreadable.js';

/** What a listing tool (grep, find) found, and the words it uses for what was cut. */
export interface Listing<D> {
  /** One entry per line, in order; empty when nothing was found. */
  lines: readonly string[];
  /** The whole answer when nothing was found, e.g. "No matches found.". */
  none: string;
  /** The tool's own details (counts, engine, its limit flag). */
  details: D;
  /** Said when the tool's result limit stopped the search. */
  limitNotice?: string | undefined;
  /** Said when a context limit (lines or bytes) cut the lines: how many were shown and how to see the rest. */
  truncationNotice: (truncation: TruncationResult) => string;
  unreadable: readonly Unreadable[];
  /** Files the read rules kept the tool from opening (see FileGate). */
  skipped?: readonly SkippedFile[];
  /** How the notice names them (default: files not searched). */
  skippedWords?: SkippedWords;
  truncate: ToolContext['truncate'];
}

export type ListingDetails<D> = D & { truncation?: TruncationResult; unreadable?: UnreadableDetails; skipped?: SkippedDetails };

/**
 * A listing as the model sees it: the lines (whole lines within the context limits), then a blank
 * line and one notice per thing that makes the list incomplete — the result limit, the byte
 * limit, paths that could not be read, files the read rules skipped — each saying how to get the rest.
 *
 * @example listingResult({ lines: ['a.ts'], none: 'No files found.', details: { results: 1 }, truncationNotice, unreadable: [], truncate: ctx.truncate })
 */
export function listingResult<D extends object>(listing: Listing<D>): AgentToolResult<ListingDetails<D>> {
  const details: ListingDetails<D> = { ...listing.details };
  const notices: string[] = [];
  let body = listing.none;
  if (listing.lines.length > 0) {
    // Both context limits apply: a limit=5000 search must not leave the kernel's backstop to cut
    // the list again, which would drop the notices below and name a spill copy instead.
    const truncation = listing.truncate.head(listing.lines.join('\n'));
    body = truncation.content.replace(/\n$/, '');
    if (listing.limitNotice !== undefined) notices.push(listing.limitNotice);
    if (truncation.truncated) {
      details.truncation = truncation;
      notices.push(listing.truncationNotice(truncation));
    }
  }
  if (listing.unreadable.length > 0) {
    details.unreadable = unreadableDetails(listing.unreadable);
    notices.push(unreadableNotice(listing.unreadable));
  }
  if (listing.skipped !== undefined && listing.skipped.length > 0) {
    details.skipped = skippedDetails(listing.skipped);
    notices.push(skippedNotice(listing.skipped, listing.skippedWords));
  }
  if (notices.length === 0) return { content: [{ type: 'text', text: body }], details };
  // The lines fill the limits at most; the notices ride on top, in the kernel's notice room.
  return { content: [{ type: 'text', text: `${body}\n\n${notices.join('\n')}` }], details, limited: true };
}
