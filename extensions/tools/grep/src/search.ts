import type { FileGate, ProgramLauncher, Unreadable, WalkStop } from '@airlock/tool-common';

/** What both engines are asked to find, and what they hand back. */

/** A match: file path (root-relative, `/`; the basename for a single file) and 1-based line number. */
export interface Hit {
  path: string;
  absolute: string;
  line: number;
}

/** An engine's answer: its hits, and every path it could not read on the way (unsorted, unfiltered). */
export interface Found {
  hits: Hit[];
  unreadable: Unreadable[];
  /** Where the walk's bounds stopped it short (the Node engine's walk; rg's own walk is only limited in depth). */
  stopped: WalkStop[];
}

export interface Search {
  root: string;
  single: boolean;
  pattern: string;
  regex: RegExp;
  glob?: string;
  ignoreCase: boolean;
  literal: boolean;
  /** Stop after this many hits (limit + 1, to know whether there are more). */
  want: number;
  signal?: AbortSignal;
  /** The read rules for each file of a folder search; a file it does not admit is never opened. */
  gate?: FileGate;
  /** Starts rg (inside the OS sandbox when the host has one); default: as is. */
  launch?: ProgramLauncher;
}

/** Bytes looked at for a NUL to call a file binary (both engines, so they skip the same files). */
export const BINARY_PROBE = 8192;
