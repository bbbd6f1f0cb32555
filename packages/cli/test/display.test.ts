import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { ToolResultMessage } from '@airlock/contract';
import { formatStatus, table } from '../src/format.js';
import { guarded } from '../src/io.js';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/** Issue 19 §3 in the CLI's own lines: what the model, a file or a project names is shown, never interpreted. */
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/** makeTempDir removes the folder when the test ends. */
function machine() {
  const base = makeTempDir('airlock-cli-display-');
  return testIO(base, join(base, 'home'));
}

function message(toolName: string, toolCallId: string): ToolResultMessage {
  return { role: 'toolResult', toolCallId, toolName, content: [], isError: true, outcome: 'not_found', timestamp: 0 };
}

describe('the CLI shows untrusted text through displayText', () => {
  it('a status line shows the escapes in a tool name and call id, and the end of a padded id', () => {
    const line = formatStatus(message('re\u001b[8mad\u202E', `c\u001b]52;c;ZXZpbA==\u0007${' '.repeat(700)}1`));
    expect(line).toBe('airlock: re\\u001B[8mad\\u202E (c\\u001B]52;c;ZXZpbA==\\u0007⟪700 spaces⟫1) → not found\n');
  });

  it('a table cell cannot carry an escape sequence', () => {
    const out = table([['NAME'], ['ev\u001b[2Jil\u2066']]);
    expect(out).toBe('NAME\nev\\u001B[2Jil\\u2066\n');
  });

  it('every write to stderr passes through terminalSafe', () => {
    let seen = '';
    guarded({ write: (t: string) => (seen += t) }).write('airlock: \u001b]52;c;eA==\u0007 \u202Ex\n');
    expect(seen).toBe('airlock: \\u001B]52;c;eA==\\u0007 \\u202Ex\n');
  });

  it('an error line quoting a file name the user gave shows its escapes', async () => {
    const io = machine();
    const code = await run(['batch', `calls\u001b[8m\u202E.json`], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('Cannot read the batch file calls\\u001B[8m\\u202E.json');
    expect(io.err()).not.toMatch(HIDDEN);
  });
});
