import { createTtyUI } from '@airlock/host';
import type { ToolUI } from '@airlock/contract';
import type { LineEditor } from './line-editor.js';

/**
 * The terminal's asks (the host's TTY UI, one at a time through its dialog queue) with the prompt
 * line out of their way: the line editor is suspended from the moment an ask is made until it is
 * answered, so the dialog reads every key and nothing typed lands in both.
 *
 * @example
 * const host = await openHost({ cwd, interactive: true, ui: pausingUI(editor, { input: process.stdin, output: process.stderr }) });
 */
export function pausingUI(editor: Pick<LineEditor, 'suspend'>, terminal: { input: NodeJS.ReadStream; output: NodeJS.WritableStream }): ToolUI {
  const inner = createTtyUI({ input: terminal.input, output: terminal.output });
  return {
    interactive: inner.interactive,
    async ask(request, options) {
      const resume = editor.suspend();
      try {
        return await inner.ask(request, options);
      } finally {
        resume();
      }
    },
  };
}
