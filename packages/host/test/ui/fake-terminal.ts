import { PassThrough } from 'node:stream';

/**
 * A stream that passes for a terminal (isTTY, setRawMode, and `columns` when given), for
 * in-process checks of the dialogs: `drawn()` is every character sent, `plain()` the same without
 * the prompt library's escape sequences.
 */
export function fakeTerminal(options: { columns?: number } = {}) {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(mode: boolean) {
      modes.push(mode);
      input.isRaw = mode;
      return input;
    },
  });
  let drawn = '';
  const output = Object.assign(new PassThrough(), options.columns === undefined ? {} : { columns: options.columns });
  output.on('data', (chunk: Buffer) => (drawn += chunk.toString()));
  const plain = () => drawn.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '');
  return { input, output, modes, plain, drawn: () => drawn };
}
