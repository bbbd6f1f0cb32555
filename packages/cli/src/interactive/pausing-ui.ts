import { createTtyUI } from '@airlock/host';
import type { ToolUI } from '@airlock/contract';
import type { LineEditor } from './line-editor.js';

/**
 * The terminal's dialogs (the host's TTY UI, one at a time through its dialog queue) with the
 * prompt line out of their way: the line editor is suspended from the moment a dialog is asked
 * for until it is answered, so the dialog reads every key and nothing typed lands in both.
 *
 * @example
 * const host = await openHost({ cwd, interactive: true, ui: pausingUI(editor, { input: process.stdin, output: process.stderr }) });
 */
export function pausingUI(editor: Pick<LineEditor, 'suspend'>, terminal: { input: NodeJS.ReadStream; output: NodeJS.WritableStream }): ToolUI {
  const inner = createTtyUI({ input: terminal.input, output: terminal.output });
  const paused = async <T>(dialog: () => Promise<T>): Promise<T> => {
    const resume = editor.suspend();
    try {
      return await dialog();
    } finally {
      resume();
    }
  };
  return {
    interactive: inner.interactive,
    confirm: (title, message, options) => paused(() => inner.confirm(title, message, options)),
    select: (title, choices, options) => paused(() => inner.select(title, choices, options)),
    input: (title, options) => paused(() => inner.input(title, options)),
  };
}
