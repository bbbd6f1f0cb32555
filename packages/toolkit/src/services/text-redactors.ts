import type { TextRedactor } from '@airlock/contract';

/**
 * The text redactors extensions registered (`api.registerRedactor`), for text that leaves the
 * tool pipeline: session transcripts, anything a host writes down besides tool results (which the
 * tool_result hook's redact phase covers). Applied in registration order, each to the previous
 * one's output. A redactor that throws or answers something that is not a string fails the whole
 * redaction with a `RedactionError` (its message names the redactor and quotes nothing): the
 * caller must then withhold the text, never write it in clear.
 *
 * @example
 * const redactors = new TextRedactors();
 * redactors.add('redact-secrets/text', (t) => t.replaceAll('hunter2', '[REDACTED]'));
 * redactors.apply('pw hunter2'); // 'pw [REDACTED]'
 */
export class TextRedactors {
  readonly #redactors: { name: string; fn: TextRedactor }[] = [];

  /** Add a redactor; returns the function that removes it. */
  add(name: string, fn: TextRedactor): () => void {
    if (typeof fn !== 'function') throw new TypeError(`A text redactor must be a function (got ${typeof fn} for "${name}").`);
    const entry = { name, fn };
    this.#redactors.push(entry);
    return () => {
      const i = this.#redactors.indexOf(entry);
      if (i >= 0) this.#redactors.splice(i, 1);
    };
  }

  get size(): number {
    return this.#redactors.length;
  }

  /** The text after every redactor. Throws an Error naming the redactor that failed. */
  apply(text: string): string {
    let out = text;
    for (const { name, fn } of this.#redactors) {
      let next: unknown;
      try {
        next = fn(out);
      } catch (error) {
        // Its message may quote the text it failed on: kept as the cause, never in the message.
        throw redactionError(`the redactor "${name}" failed (its own error is not shown: it may quote the text)`, error);
      }
      if (typeof next !== 'string') throw redactionError(`the redactor "${name}" answered ${next === null ? 'null' : typeof next}, not the redacted text`);
      out = next;
    }
    return out;
  }
}

/**
 * A redaction that failed. Named so that a caller can tell its message (which quotes nothing of
 * the text) from an arbitrary error's, which might.
 */
export function redactionError(message: string, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = 'RedactionError';
  return error;
}
