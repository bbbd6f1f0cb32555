import { createInterface, type Interface } from 'node:readline';

/** What the person did at the prompt line. */
export interface LineEditorHandlers {
  /** Enter: the line typed (without its line break). */
  line(text: string): void;
  /** Ctrl-C (a keystroke in raw mode, so the editor hears it rather than the process). */
  interrupt(): void;
  /** Ctrl-D on an empty line, or the end of the input: the person is leaving. */
  end(): void;
}

export interface LineEditorOptions {
  /** The keyboard: a TTY read stream (process.stdin). */
  input: NodeJS.ReadStream;
  /** The terminal, unfiltered: the prompt and cursor movements go here. */
  output: NodeJS.WritableStream;
  /** The prompt text. Default `> `. */
  prompt?: string;
}

/**
 * The interactive mode's prompt line over Node's readline, sharing the terminal with the agent's
 * output and with dialogs:
 * - while the agent works, typing still goes on: its output is printed *above* the line being
 *   typed (the line is taken down, the text written, the line drawn again under it);
 * - a dialog gets the terminal to itself: `suspend()` closes the readline (its raw mode and key
 *   handling with it) and the line comes back, with what had been typed, when the dialog is done.
 *   Two readers of one keyboard would each get every key and the dialog's answer would also land
 *   in the prompt.
 *
 * @example
 * const editor = createLineEditor({ input: process.stdin, output: process.stderr });
 * editor.start({ line: (text) => run(text), interrupt: () => abort(), end: () => leave() });
 * editor.idle();                                    // shows "> "
 * editor.print('Hello\n', (t) => process.stdout.write(t));
 */
export interface LineEditor {
  start(handlers: LineEditorHandlers): void;
  /** The agent waits for the person: the prompt is shown (with anything typed meanwhile). */
  idle(): void;
  /** The agent works: the prompt shows again only once the person types. */
  busy(): void;
  /**
   * Writes `text` through `write` (stdout or stderr) above the line being typed. `freshLine`:
   * start on a line of its own when the text before it (a streamed answer) ended mid-line.
   */
  print(text: string, write: (text: string) => void, options?: { freshLine?: boolean }): void;
  /** What has been typed on the line so far. */
  readonly typed: string;
  /** Forgets what has been typed (Ctrl-C at the idle prompt). */
  clearLine(): void;
  /** Hands the terminal to a dialog; call the returned function when it is done. Nested calls are counted. */
  suspend(): () => void;
  close(): void;
}

const ERASE_LINE = '\r\u001b[K';

export function createLineEditor(options: LineEditorOptions): LineEditor {
  const { input, output } = options;
  const promptText = options.prompt ?? '> ';
  let rl: Interface | undefined;
  let handlers: LineEditorHandlers | undefined;
  let history: string[] = [];
  let mode: 'idle' | 'busy' = 'busy';
  /** The prompt and the typed line are on the terminal's last line now. */
  let promptShown = false;
  /** The session's own output ended with a line break (or nothing was written yet). */
  let atLineStart = true;
  let suspended = 0;
  /** What was typed when a dialog took the terminal, put back when it is done. */
  let saved = '';
  let closed = false;

  const open = (): void => {
    const it = createInterface({ input, output, terminal: input.isTTY === true, prompt: promptText, history, historySize: 200 });
    it.on('history', (h: string[]) => (history = h));
    it.on('line', (text: string) => {
      // readline has moved to a fresh line below what was typed.
      promptShown = false;
      atLineStart = true;
      handlers?.line(text);
    });
    it.on('SIGINT', () => handlers?.interrupt());
    it.on('close', () => {
      // Closed by Ctrl-D or the end of input, not by suspend() or close().
      if (rl !== it) return;
      rl = undefined;
      if (promptShown) output.write('\n');
      promptShown = false;
      if (!closed) handlers?.end();
    });
    rl = it;
  };

  const draw = (): void => {
    if (rl === undefined) return;
    if (!atLineStart) output.write('\n');
    atLineStart = true;
    rl.prompt(true);
    promptShown = true;
  };

  // Runs before readline's own key handling: the first key typed while the agent works brings the
  // prompt up (on a line of its own) before readline echoes the key.
  const onKey = (s: string | undefined, key: { ctrl?: boolean; meta?: boolean } | undefined): void => {
    if (rl === undefined || mode !== 'busy' || promptShown) return;
    const printable = typeof s === 'string' && s.length > 0 && s >= ' ' && key?.ctrl !== true && key?.meta !== true;
    if (printable) draw();
  };

  return {
    start(h) {
      handlers = h;
      input.prependListener('keypress', onKey);
      open();
    },
    idle() {
      mode = 'idle';
      draw();
    },
    busy() {
      mode = 'busy';
    },
    print(text, write, options = {}) {
      if (text === '') return;
      if (promptShown) {
        output.write(ERASE_LINE);
        promptShown = false;
      }
      if (options.freshLine === true && !atLineStart) write('\n');
      write(text);
      atLineStart = text.endsWith('\n');
      if (rl !== undefined && atLineStart && (mode === 'idle' || rl.line !== '')) draw();
    },
    get typed() {
      return rl?.line ?? '';
    },
    clearLine() {
      if (rl === undefined) return;
      // Ctrl-E then Ctrl-U: to the end, then delete to the start (readline's own editing keys).
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
    },
    suspend() {
      suspended++;
      if (suspended === 1 && rl !== undefined) {
        saved = rl.line;
        if (promptShown) output.write(ERASE_LINE);
        else if (!atLineStart) output.write('\n');
        promptShown = false;
        atLineStart = true;
        const it = rl;
        rl = undefined;
        it.close();
      }
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        suspended--;
        if (suspended > 0 || closed || handlers === undefined) return;
        open();
        if (mode === 'idle' || saved !== '') draw();
        if (saved !== '') rl!.write(saved);
        saved = '';
      };
    },
    close() {
      if (closed) return;
      closed = true;
      input.removeListener('keypress', onKey);
      if (promptShown) output.write('\n');
      const it = rl;
      rl = undefined;
      it?.close();
    },
  };
}
