/**
 * Dialogs in the terminal, through @inquirer prompts.
 *
 * - Prompts draw on STDERR by default, so stdout stays clean for `--json` output.
 * - Only a TTY input is interactive. Without one every ask ends `unavailable` at once, without
 *   reading a byte: stdin may be carrying the call's own arguments (`airlock call tool -`).
 * - Ctrl-C during a prompt ends that ask without an answer (`cancelled`), and the process carries
 *   on: an agent must not die because someone declined an approval with the reflex key. (In raw
 *   mode Ctrl-C is a keystroke, not a signal, so this costs nothing elsewhere.) Ctrl-D and the end
 *   of the input end it too; the prompt library would otherwise wait forever.
 * - Timeouts: the prompt shows the seconds left; the library redraws on keystrokes only, so the
 *   number is fresh at each redraw rather than ticking by itself.
 * - The terminal is back in cooked mode after every dialog, answered or not (readline restores it
 *   when the prompt closes; we never hand the library an already-aborted signal, the one path on
 *   which it opens a raw readline and never closes it).
 * - A confirm is a y/N question (Enter alone says no: an approval should take a deliberate "y"); a
 *   choice is a list of the choices' labels, answered with the id of the one picked; text is a line.
 * - Every text an extension hands a dialog (title, message, labels, placeholder) goes through
 *   `terminalSafe` here: an extension should show untrusted parts with `displayText`, but a
 *   careless one must still not be able to send ESC, bidi or invisible characters to the terminal.
 *   A tab is shown as `\t`; a label or a placeholder is one line (a line break in it as `\n`),
 *   so no choice can draw what looks like another.
 * - Lines longer than the terminal is wide are cut here, each further piece starting with `↪`
 *   (see fit-width.ts): wrapped by the library, the rest of a long value would start a screen
 *   line of its own and could pass for a line of the dialog.
 */
import { Writable } from 'node:stream';
import type confirmPrompt from '@inquirer/confirm';
import type inputPrompt from '@inquirer/input';
import type selectPrompt from '@inquirer/select';
import type { AskAnswer, AskRequest, Logger, NoAnswer, ToolUI } from '@airlock/contract';
import { terminalSafe } from '@airlock/toolkit/display';
import { createAskUI } from './ask.js';
import { queueFor, type DialogQueue, type DialogShowContext } from './dialog-queue.js';
import { fitWidth } from './fit-width.js';

export interface TtyUIOptions {
  /** Where keys come from. Default process.stdin. Dialogs are interactive only if it is a TTY. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where prompts are drawn. Default process.stderr. */
  output?: NodeJS.WritableStream;
  /** Default: the queue shared by every UI on the same input (see queueFor). */
  queue?: DialogQueue;
  /** Prompt failures (the ask ends `unavailable`). Default: a line on `output`. */
  log?: Pick<Logger, 'warn'>;
}

/**
 * The prompt library is loaded on the first dialog, not at start-up: most runs never show one,
 * and importing it costs about 50 ms per prompt kind.
 */
let prompts: { confirm: typeof confirmPrompt; input: typeof inputPrompt; select: typeof selectPrompt } | undefined;

async function loadPrompts(): Promise<void> {
  if (prompts !== undefined) return;
  const [confirm, input, select] = await Promise.all([import('@inquirer/confirm'), import('@inquirer/input'), import('@inquirer/select')]);
  prompts = { confirm: confirm.default, input: input.default, select: select.default };
}

/** The options every @inquirer prompt takes as its second argument. */
interface PromptContext {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
}

/** Names of the errors @inquirer rejects with when a prompt ends without an answer. */
const UNANSWERED = new Set(['ExitPromptError', 'AbortPromptError', 'CancelPromptError']);

/**
 * A ToolUI that prompts in the terminal, one dialog at a time.
 *
 * @example
 * const ui = createTtyUI();
 * const answer = await ui.ask({ kind: 'confirm', title: 'Run `rm -rf build`?', message: 'The bash tool wants to delete a folder.' }, { timeoutMs: 60_000 });
 * if ('id' in answer && answer.id === 'yes') run();
 */
export function createTtyUI(options: TtyUIOptions = {}): ToolUI {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const log = options.log ?? { warn: (message: string) => void output.write(`airlock: ${terminalSafe(message, { lineBreaks: false, tabs: false })}\n`) };
  const queue = options.queue ?? queueFor(input, { onError: (error) => log.warn(`dialog: ${describe(error)}`) });
  const paint = painter(output);
  /** The library's default when the output says no width (not a terminal). */
  const columns = (): number => (output as { columns?: number }).columns ?? 80;
  /** A dialog's title or message: lines kept, cut to the width after the library's `? `. */
  const message = (text: string): string => fitWidth(terminalSafe(text, { tabs: false }), columns(), 2);
  /** A label or a placeholder: one line, cut to the width after the library's `❯ `. */
  const line = (text: string): string => fitWidth(terminalSafe(text, { lineBreaks: false, tabs: false }), columns(), 2);

  /** Runs one prompt: Ctrl-C, Ctrl-D and the end of the input end it without an answer, saying which. */
  async function prompt(shown: DialogShowContext, run: (context: PromptContext) => Promise<AskAnswer>): Promise<AskAnswer> {
    await loadPrompts();
    if (shown.signal.aborted) return { noAnswer: { kind: 'aborted' } };
    const stop = new AbortController();
    /** Why a key or the input ended the prompt, which the library only reports as an abort. */
    let ended: NoAnswer | undefined;
    const forward = (): void => stop.abort(shown.signal.reason);
    const onKey = (_: unknown, key?: { ctrl?: boolean; name?: string }): void => {
      if (key?.ctrl === true && key.name === 'd') {
        ended ??= { kind: 'cancelled', detail: 'Ctrl-D' };
        stop.abort(new Error('Ctrl-D'));
      }
    };
    const onEnd = (): void => {
      ended ??= { kind: 'unavailable', detail: 'the terminal input ended' };
      stop.abort(new Error('end of input'));
    };
    shown.signal.addEventListener('abort', forward, { once: true });
    // The prompt creates its readline (which starts keypress decoding) synchronously, so listen after.
    const answer = run({ input, output: keepOpen(output), signal: stop.signal });
    input.on('keypress', onKey);
    input.once('end', onEnd);
    try {
      return await answer;
    } catch (error) {
      if (ended !== undefined) return { noAnswer: ended };
      // The queue closed it (time ran out, the caller aborted): the queue says which.
      if (shown.signal.aborted) return { noAnswer: { kind: 'aborted' } };
      // Ctrl-C (the library's ExitPromptError).
      if (error instanceof Error && UNANSWERED.has(error.name)) return { noAnswer: { kind: 'cancelled', detail: 'Ctrl-C' } };
      log.warn(`dialog failed: ${describe(error)}`);
      return { noAnswer: { kind: 'unavailable', detail: `the dialog failed: ${describe(error)}` } };
    } finally {
      shown.signal.removeEventListener('abort', forward);
      input.removeListener('keypress', onKey);
      input.removeListener('end', onEnd);
    }
  }

  /** The title in bold, plus the seconds left while a timeout runs. */
  function titleStyle(deadline: number | undefined, onTimeout: string) {
    return (text: string, status: string): string => {
      if (deadline === undefined || status === 'done') return paint.bold(text);
      const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      return `${paint.bold(text)} ${paint.dim(`(${onTimeout} in ${seconds}s)`)}`;
    };
  }

  function show(request: AskRequest, shown: DialogShowContext): Promise<AskAnswer> {
    const question = message(request.message ? `${request.title}\n${request.message}` : request.title);
    switch (request.kind) {
      case 'confirm':
        return prompt(shown, async (context) => {
          const yes = await prompts!.confirm(
            // Enter alone declines: an approval should take a deliberate "y".
            { message: question, default: false, theme: { style: { message: titleStyle(shown.deadline, 'answers No') } } },
            context,
          );
          return { id: yes ? 'yes' : 'no' };
        });
      case 'choice':
        return prompt(shown, async (context) => ({
          id: await prompts!.select(
            {
              message: question,
              choices: request.choices!.map((choice) => ({ value: choice.id, name: line(choice.label) })),
              theme: { style: { message: titleStyle(shown.deadline, 'gives up') } },
            },
            context,
          ),
        }));
      case 'text': {
        const { placeholder } = request;
        return prompt(shown, async (context) => ({
          text: await prompts!.input(
            {
              message: question,
              // A placeholder is a hint drawn where the text goes, never an answer (unlike `default`).
              transformer: (value, { isFinal }) => (!isFinal && value === '' && placeholder ? paint.dim(line(placeholder)) : terminalSafe(value)),
              theme: { style: { message: titleStyle(shown.deadline, 'gives up') } },
            },
            context,
          ),
        }));
      }
    }
  }

  return createAskUI(
    {
      interactive: input.isTTY === true,
      nobody: 'no terminal to show it in',
      show,
    },
    { queue },
  );
}

/**
 * The prompt library pipes into its output and ends it when the prompt closes. Node never ends
 * process.stdout/stderr that way, but any other stream (a /dev/tty handle, a test stream) would be
 * closed after the first dialog, so other outputs get a pass-through that ignores the end.
 */
function keepOpen(output: NodeJS.WritableStream): NodeJS.WritableStream {
  if (output === process.stdout || output === process.stderr) return output;
  const proxy = new Writable({
    decodeStrings: false,
    write(chunk: string | Uint8Array, _encoding, callback) {
      // Written straight through and acknowledged at once, so a following dialog cannot overtake it.
      output.write(chunk);
      callback();
    },
  });
  // readline and the library size the prompt from these.
  for (const key of ['isTTY', 'columns', 'rows'] as const) {
    Object.defineProperty(proxy, key, { get: () => (output as Partial<Record<typeof key, unknown>>)[key] });
  }
  return proxy;
}

/** Bold and dim when the output takes colours (a TTY without NO_COLOR), plain text otherwise. */
function painter(output: NodeJS.WritableStream): { bold(text: string): string; dim(text: string): string } {
  const hasColors = (output as { hasColors?: () => boolean }).hasColors;
  const colors = typeof hasColors === 'function' && hasColors.call(output);
  const wrap = (open: number, close: number) => (text: string) => (colors ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { bold: wrap(1, 22), dim: wrap(2, 22) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
