import type { Logger } from '@airlock/contract';

/** A definition the kernel or the host refused during setup, for the load's diagnostics. */
export interface RegistrationError {
  kind: 'tool' | 'handler';
  name: string;
  error: unknown;
}

/**
 * What one extension registered during its setup, and how to take each back: a setup that fails
 * leaves nothing behind. After setup the record is sealed, and a late registration is refused (it
 * could not be undone, nor listed by `airlock extensions`).
 *
 * @example
 * const off = reg.register('handler', name, () => services.access.add(name, check));
 * reg.undoWith(`access check "${name}"`, off);
 * reg.rollback(); // ['access check "guard/files"']
 */
export class Registrations {
  readonly errors: RegistrationError[] = [];
  readonly #undo: { what: string; run: () => void }[] = [];
  readonly #extension: string;
  readonly #log: Logger;
  #sealed = false;
  #policy = false;

  constructor(extension: string, log: Logger) {
    this.#extension = extension;
    this.#log = log;
  }

  /** Whether the extension registered policy (a policy phase handler, an access check, a redactor, sandbox rules). */
  get policy(): boolean {
    return this.#policy;
  }

  /** What was registered is policy: if the extension fails to load, nothing may run (fail closed). */
  markPolicy(): void {
    this.#policy = true;
  }

  /** Throws, with a warning naming the extension, once its setup has finished. */
  refuseWhenSealed(method: string): void {
    if (!this.#sealed) return;
    const message =
      `Extension "${this.#extension}" called api.${method} after its setup finished. Register tools, handlers and ` +
      'listeners inside setup (await anything they need first), so a failed load can be undone and `airlock extensions` shows them.';
    this.#log.warn(message);
    throw new Error(message);
  }

  /** Run `register`, which returns its remover; what it throws is recorded (kind, name) and thrown on. */
  register(kind: RegistrationError['kind'], name: string, register: () => () => void): () => void {
    try {
      return register();
    } catch (error) {
      this.errors.push({ kind, name, error });
      throw error;
    }
  }

  /** Remember how to take a registration back if the load fails. */
  undoWith(what: string, run: () => void): void {
    this.#undo.push({ what, run });
  }

  seal(): void {
    this.#sealed = true;
  }

  /** Take back everything, newest first; returns what was removed, in registration order. */
  rollback(): string[] {
    const removed: string[] = [];
    while (this.#undo.length > 0) {
      const step = this.#undo.pop()!;
      step.run();
      removed.push(step.what);
    }
    return removed.reverse();
  }
}
