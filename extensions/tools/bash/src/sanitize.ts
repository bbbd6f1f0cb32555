/**
 * Make terminal output readable for a model: drop ANSI escape sequences and control characters,
 * keeping "\n" and "\t". A carriage return overwrites its line as a terminal would (progress
 * bars keep their last state); "\r\n" is a plain newline.
 *
 * Applied to decoded text only (the rolling tail), never to the raw bytes in the spill file.
 */

// CSI (ESC [ … final, or the 8-bit CSI), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC strings (ESC P|X|^|_ … ST),
// and the remaining two- or three-byte escapes (charset selection, keypad modes, …).
const ANSI =
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]/g;

// C0 except \t and \n, DEL, C1.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function sanitize(text: string): string {
  // Fast path: plain printable text (the usual case) is returned as is.
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text)) return text;
  let out = text.replace(ANSI, '');
  if (out.includes('\r')) {
    out = out
      .replace(/\r+\n/g, '\n')
      .split('\n')
      .map((line) => {
        if (!line.includes('\r')) return line;
        const parts = line.split('\r');
        for (let i = parts.length - 1; i >= 0; i--) if (parts[i] !== '') return parts[i];
        return '';
      })
      .join('\n');
  }
  return out.replace(CONTROL, '');
}
