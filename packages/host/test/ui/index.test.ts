import { NO_UI } from '@airlock/kernel';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { chooseUI, createAskUI, createTtyUI, DialogQueue, queueFor } from '../../src/ui/index.js';

describe('chooseUI', () => {
  it('picks the terminal when there is one (interactive as far as process.stdin is a TTY)', () => {
    const ui = chooseUI({ isTTY: true });
    expect(ui).not.toBe(NO_UI);
    expect(ui.interactive).toBe(process.stdin.isTTY === true);
  });

  it('the terminal UI asks on its streams and answers by id', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    const output = new PassThrough();
    const ui = createTtyUI({ input, output, queue: new DialogQueue() });
    expect(ui.interactive).toBe(true);
    const answer = ui.ask({ kind: 'confirm', title: 'In the terminal?' });
    // The prompt library loads on the first dialog, so wait for the prompt to be drawn.
    let drawn = '';
    await vi.waitFor(() => {
      drawn += String(output.read() ?? '');
      expect(drawn).toContain('In the terminal?');
    });
    input.write('y\r');
    expect(await answer).toEqual({ id: 'yes' });
  });

  it("falls back to the kernel's NO_UI: nobody answers, and the answer says so", async () => {
    const ui = chooseUI({ isTTY: false });
    expect(ui).toBe(NO_UI);
    expect(ui.interactive).toBe(false);
    expect(await ui.ask({ kind: 'confirm', title: 'Anyone?' })).toEqual({ noAnswer: { kind: 'unavailable', detail: 'no terminal and no dialog to show it in' } });
    // A malformed ask is the asker's bug, with or without a person to ask.
    await expect(ui.ask({ kind: 'choice', title: 'Pick', choices: [] })).rejects.toThrow(/a choice ask needs at least one choice/);
  });

  it('exports the factories and the queue', () => {
    expect(typeof createTtyUI).toBe('function');
    expect(typeof createAskUI).toBe('function');
    expect(queueFor({})).toBeInstanceOf(DialogQueue);
  });
});
