/**
 * A problem worth telling someone about that did not throw: a warning while selecting tools, a
 * settings file whose code was not run, an extension that failed to load. The kernel, the host and
 * the CLI all report them in this one shape; `code` is an entry of the error catalogue
 * (docs/errors.md), so a UI can look up what it means and what to do.
 *
 * @example
 * const d: Diagnostic = { code: 'AIRLOCK_SELECTION_UNKNOWN_TOOL', severity: 'warning', message: '…', details: { name: 'raed' } };
 */
export interface Diagnostic<C extends string = string, D extends object = Readonly<Record<string, unknown>>> {
  readonly code: C;
  readonly severity: Severity;
  /** What is wrong, why, and the fix. */
  readonly message: string;
  /** Just the fix, for UIs that show it apart (also part of `message`). */
  readonly fix?: string;
  /** The code's own fields, JSON-friendly, for programs that act on it. */
  readonly details: D;
  /** The extension concerned: its own name once its module was read, else as settings name it. */
  readonly extension?: string;
  /** The settings entry as written (`./tools/x`, `@acme/guard`). */
  readonly spec?: string;
  /** The settings layer the problem comes from (`user`, `project`, `cli` …). */
  readonly layer?: string;
  /** The settings file concerned. */
  readonly file?: string;
  /** The original error's text when something threw. */
  readonly error?: string;
  /** The original error's stack when something threw (the CLI prints it with --verbose). */
  readonly stack?: string;
}

/** `error`: something did not load or run; `warning`: it went on, less than asked; `info`: for the record. */
export type Severity = 'error' | 'warning' | 'info';
