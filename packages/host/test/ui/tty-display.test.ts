import { describe, expect, it } from 'vitest';
import { around, HOSTILE_SAMPLES, rawHostile, spoofedLines, visibleForm } from '@airlock/kernel/testing';
import type { ToolUI } from '@airlock/contract';
import { DialogQueue } from '../../src/ui/dialog-queue.js';
import { CONTINUED, fitWidth } from '../../src/ui/fit-width.js';
import { createTtyUI } from '../../src/ui/tty.js';
import { flush } from './fake-backend.js';
import { fakeTerminal } from './fake-terminal.js';

/**
 * Issue 24 §6: whatever an extension hands a terminal dialog — its own words or a model's, escaped
 * or not — each hostile character and sequence in each field is shown as a visible escape, and
 * nothing in a field starts a line of its own. (The pty test in tty.test.ts checks a few through
 * a real terminal; this one goes through every sample, in process.)
 */
type Draw = (ui: ToolUI, text: string, signal: AbortSignal) => Promise<unknown>;

const FIELDS: Record<string, { draw: Draw; oneLine: boolean }> = {
  'confirm title': { draw: (ui, t, signal) => ui.ask({ kind: 'confirm', title: `Run ${t}?` }, { signal }), oneLine: false },
  'confirm message': { draw: (ui, t, signal) => ui.ask({ kind: 'confirm', title: 'Run it?', message: `It says ${t}` }, { signal }), oneLine: false },
  'choice title': { draw: (ui, t, signal) => ui.ask({ kind: 'choice', title: `Pick ${t}`, choices: [{ id: 'one', label: 'one' }, { id: 'two', label: 'two' }] }, { signal }), oneLine: false },
  'choice label': { draw: (ui, t, signal) => ui.ask({ kind: 'choice', title: 'Pick one', choices: [{ id: 'one', label: 'one' }, { id: 'it', label: t }, { id: 'two', label: 'two' }] }, { signal }), oneLine: true },
  'text title': { draw: (ui, t, signal) => ui.ask({ kind: 'text', title: `Say ${t}` }, { signal }), oneLine: false },
  'text placeholder': { draw: (ui, t, signal) => ui.ask({ kind: 'text', title: 'Say it', placeholder: t }, { signal }), oneLine: true },
};

/**
 * The prompt library's own drawing: colours, cursor moves, erasing. (A sample's sequences would
 * match too, so each test first checks that no sample reached the terminal whole.)
 */
const LIBRARY = /\u001b\[\??[0-9;]*[A-Za-z]/g;

/** The first dialog loads the prompt library: wait until it has drawn (bounded generously). */
async function drawnSomething(term: ReturnType<typeof fakeTerminal>): Promise<void> {
  for (let i = 0; i < 5000 && term.drawn() === ''; i++) await new Promise((resolve) => setTimeout(resolve, i < 100 ? 0 : 10));
  await flush();
}

describe('terminal dialogs show every hostile character visibly, in every field', () => {
  for (const [field, { draw, oneLine }] of Object.entries(FIELDS)) {
    it(field, async () => {
      for (const sample of HOSTILE_SAMPLES) {
        const term = fakeTerminal({ columns: 200 });
        const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
        const stop = new AbortController();
        const answer = draw(ui, around(sample), stop.signal);
        await drawnSomething(term);
        stop.abort();
        await answer;
        const drawn = term.drawn();
        const what = `${sample.name} in the ${field}:\n${JSON.stringify(drawn)}`;
        const lineBreak = sample.text === '\n';
        // A sequence never arrives whole (a lone ESC is looked for below, among the library's own).
        if (sample.text.length > 1) expect(drawn.includes(sample.text), what).toBe(false);
        const shown = drawn.replace(LIBRARY, '');
        expect(rawHostile(shown, { lines: true }), what).toEqual([]);
        // A title or message may have lines (the extension's own); a label or a placeholder never.
        if (oneLine || !lineBreak) {
          expect(spoofedLines(shown), what).toEqual([]);
          expect(shown, what).toContain(visibleForm(sample.text));
        }
      }
    });
  }

  it('a line longer than the terminal is cut into pieces that each start with ↪, so its words never start a line of the dialog', async () => {
    const term = fakeTerminal({ columns: 60 });
    const ui = createTtyUI({ input: term.input, output: term.output, queue: new DialogQueue() });
    const stop = new AbortController();
    // Padded so that, wrapped at 60 columns by the library, "Asked by rule ok" would start a line.
    const value = `${'x'.repeat(47)} Asked by rule ok: fine`;
    const answer = ui.ask({ kind: 'choice', title: `Allow bash?\n  command: ${value}`, choices: [{ id: 'once', label: 'Allow once' }, { id: 'deny', label: 'Deny' }] }, { signal: stop.signal });
    await drawnSomething(term);
    stop.abort();
    await answer;
    const lines = term.plain().split('\n');
    expect(lines.some((l) => l.startsWith('Asked by'))).toBe(false);
    expect(lines.some((l) => l.startsWith(`${CONTINUED} Asked by rule ok: fine`))).toBe(true);
  });
});

describe('fitWidth', () => {
  it('keeps every piece within the width, wide characters counted as two, and loses no character', () => {
    const text = `short\n${'ab '.repeat(50)}end\n${'界'.repeat(70)}\n${'\\u001B'.repeat(30)}`;
    const fitted = fitWidth(text, 40, 2);
    const lines = fitted.split('\n');
    lines.forEach((line, i) => {
      const columns = [...line].reduce((n, c) => n + (c.charCodeAt(0) < 0x7f ? 1 : 2), 0);
      expect(columns + (i === 0 ? 2 : 0), line).toBeLessThan(40);
    });
    expect(lines[0]).toBe('short');
    // The pieces, marks taken off, are the text, blanks and all.
    expect(fitted.replace(/\n {2}\u21AA /g, '')).toBe(text);
    // No piece ends with a blank (the library would drop it).
    expect(lines.every((line) => !line.endsWith(' '))).toBe(true);
  });

  it('cuts at a blank in the second half of a piece, so words stay whole', () => {
    expect(fitWidth('aaaa bbbb cccc dddd eeee ffff gggg', 21)).toBe(`aaaa bbbb cccc dddd\n${CONTINUED} eeee ffff gggg`);
  });
});
