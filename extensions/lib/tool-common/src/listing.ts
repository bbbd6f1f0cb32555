import type { AgentToolResult, ToolContext, TruncationResult } from '@airlock/contract';
import { skippedDetails, skippedNotice, type SkippedDetails, type SkippedFile, type SkippedWords } from './file-gate.js';
import { unreadableDetails, unreadableNotice, type Unreadable, type UnreadableDetails } from './unreadable.js';
import type { WalkStop } from './walk.js';

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
  /** Where the walk's bounds stopped it short (see walk's onBound). */
  stopped?: readonly WalkStop[];
  truncate: ToolContext['truncate'];
}

/** Where the walk's bounds stopped it: folders too deep to enter (the first few), and where the entry bound ended it. */
export interface StoppedDetails {
  deep?: { count: number; limit: number; paths: string[] };
  entries?: { limit: number; at: string };
}

export type ListingDetails<D> = D & { truncation?: TruncationResult; unreadable?: UnreadableDetails; skipped?: SkippedDetails; stopped?: StoppedDetails };

/** Folders too deep named in the notice and kept in the details. */
const DEEP_NAMES = 3;

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
  const stopped = stoppedDetails(listing.stopped ?? []);
  if (stopped !== undefined) {
    details.stopped = stopped;
    notices.push(...stoppedNotices(stopped));
  }
  if (notices.length === 0) return { content: [{ type: 'text', text: body }], details };
  // The lines fill the limits at most; the notices ride on top, in the kernel's notice room.
  return { content: [{ type: 'text', text: `${body}\n\n${notices.join('\n')}` }], details, limited: true };
}

function stoppedDetails(stops: readonly WalkStop[]): StoppedDetails | undefined {
  if (stops.length === 0) return undefined;
  const out: StoppedDetails = {};
  const deep = stops.filter((s) => s.bound === 'depth');
  if (deep.length > 0) out.deep = { count: deep.length, limit: deep[0]!.limit, paths: deep.slice(0, DEEP_NAMES).map((s) => s.path) };
  const ended = stops.find((s) => s.bound === 'entries');
  if (ended !== undefined) out.entries = { limit: ended.limit, at: ended.path === '' ? '.' : ended.path };
  return out;
}

/**
 * The notice lines, e.g. `[1 folder more than 128 levels below the search folder was not entered
 * (a/a/…/a); results may be incomplete. Search inside it to see more.]`.
 */
function stoppedNotices(stopped: StoppedDetails): string[] {
  const notices: string[] = [];
  if (stopped.deep !== undefined) {
    const { count, limit, paths } = stopped.deep;
    const names = paths.map((p) => shortRelative(p)).join(', ');
    notices.push(
      `[${count} ${count === 1 ? 'folder' : 'folders'} more than ${limit} levels below the search folder ${count === 1 ? 'was' : 'were'} not entered (${count > paths.length ? `e.g. ${names}` : names}); results may be incomplete. Search inside ${count === 1 ? 'it' : 'one of them'} to see more.]`,
    );
  }
  if (stopped.entries !== undefined) {
    notices.push(
      `[The walk stopped after ${stopped.entries.limit} files and folders (it was listing ${shortRelative(stopped.entries.at)}); results may be incomplete. Search a subfolder, or narrow the pattern or glob.]`,
    );
  }
  return notices;
}

/** A long relative path as its start and end, so a notice stays short. */
function shortRelative(path: string, max = 100): string {
  if (path.length <= max) return path;
  return `${path.slice(0, max / 2)}…${path.slice(path.length - max / 3)}`;
}
