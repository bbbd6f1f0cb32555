import type { TextRedactor } from './contract/extension.js';

/**
 * The text redactors extensions registered (`api.registerRedactor`), for text that leaves the
 * tool pipeline: session transcripts, anything a host writes down besides tool results (which the
 * tool_result hook's redact phase covers). Applied in registration order, each to the previous
 * one's output. A redactor that throws or answers something that is not a string fails the whole
 * redaction: the caller must then withhold the text, never write it in clear.
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
        throw new Error(`the redactor "${name}" failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (typeof next !== 'string') throw new Error(`the redactor "${name}" answered ${next === null ? 'null' : typeof next}, not the redacted text`);
      out = next;
    }
    return out;
  }
}
