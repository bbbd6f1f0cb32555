import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { around, HOSTILE_SAMPLES, makeTempDir, rawHostile, spoofedLines, visibleForm, type HostileSample } from '@airlock/kernel/testing';
import type { ToolResultMessage } from '@airlock/contract';
import { formatResultHeader, formatStatus, table } from '../src/format.js';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * Issue 24 §6 in the CLI's own lines: each hostile character and sequence in each field that
 * comes from a model, a project or an extension. Nothing raw reaches the output, no line break
 * in a field starts a line of its own, and the field reads as its visible escapes.
 */

/** Output a person reads: nothing obeyed or hidden, no field on a line of its own. */
function expectShown(output: string, what: string): void {
  expect(rawHostile(output, { lines: true }), `${what}\n${output}`).toEqual([]);
  expect(spoofedLines(output), `${what}\n${output}`).toEqual([]);
}

function message(toolName: string, toolCallId: string): ToolResultMessage {
  return { role: 'toolResult', toolCallId, toolName, content: [], isError: true, outcome: 'not_found', timestamp: 0 };
}

/** The samples in groups small enough that a field holding one group is shown whole (not cut). */
function groups(size: number): HostileSample[][] {
  const out: HostileSample[][] = [];
  for (let i = 0; i < HOSTILE_SAMPLES.length; i += size) out.push(HOSTILE_SAMPLES.slice(i, i + size));
  return out;
}

describe('the lines the CLI draws show every hostile character visibly', () => {
  it('status lines and batch headers: the tool name and the call id the model chose', () => {
    for (const sample of HOSTILE_SAMPLES) {
      const text = around(sample);
      for (const line of [formatStatus(message(text, 'c1'), 12), formatStatus(message('read', text)), formatResultHeader(message(text, text), 0, 2)]) {
        expectShown(line, sample.name);
        expect(line.split('\n'), sample.name).toHaveLength(2); // one line and its end
        expect(line, sample.name).toContain(visibleForm(sample.text));
      }
    }
  });

  it('table cells (tools, extensions, sessions)', () => {
    for (const sample of HOSTILE_SAMPLES) {
      const out = table([['NAME', 'SOURCE'], [around(sample), 'x'], ['y', around(sample)]]);
      expectShown(out, sample.name);
      expect(out.split('\n'), sample.name).toHaveLength(4);
      expect(out, sample.name).toContain(visibleForm(sample.text));
    }
  });

  it("an extension's log lines: one line each", async () => {
    const base = makeTempDir('airlock-cli-lines-');
    const project = join(base, 'project');
    mkdirSync(join(project, 'talker'), { recursive: true });
    writeFileSync(join(project, 'talker', 'package.json'), JSON.stringify({ name: 'talker', version: '1.0.0', type: 'module', airlock: { extension: './index.ts', kernel: '^1.0.0', provides: { tools: [], hooks: [] } } }));
    const texts = HOSTILE_SAMPLES.map(around);
    writeFileSync(join(project, 'talker', 'index.ts'), `const texts = ${JSON.stringify(texts)};\nexport default { name: 'talker', setup(api) { for (const t of texts) api.log.warn(t); } };\n`);
    writeFileSync(join(project, '.airlockrc.json'), JSON.stringify({ extensions: [{ path: './talker' }] }));
    const io = testIO(project, join(base, 'home'));
    await run(['--trust', 'tools'], io);
    expectShown(io.err(), 'log lines');
    for (const sample of HOSTILE_SAMPLES) expect(io.err(), sample.name).toContain(`[talker] ${visibleForm(around(sample))}\n`);
  });

  it("a project folder's name and its settings entries, in the warnings about an untrusted project and a missing extension", async () => {
    for (const group of groups(6)) {
      const base = makeTempDir('airlock-cli-lines-');
      // Folder names cannot hold NUL; every other sample can.
      const named = group.filter((s) => s.text !== '\u0000');
      const project = join(base, named.map(around).join(''));
      mkdirSync(project, { recursive: true });
      const entries = named.map((s) => `./${around(s)}`);
      writeFileSync(join(project, '.airlockrc.json'), JSON.stringify({ extensions: entries, permissions: { allow: ['read(**)'] } }));
      for (const [trust, command] of [['--no-trust', 'tools'], ['--trust', 'tools'], ['--trust', 'doctor']] as const) {
        const io = testIO(project, join(base, 'home'));
        await run([trust, command], io);
        const what = `${trust} ${command}: ${named.map((s) => s.name).join(', ')}`;
        expectShown(io.err() + io.out(), what);
        // tools warns on stderr; doctor's report of the same problems is its output.
        const said = command === 'doctor' ? io.out() : io.err();
        for (const sample of named) expect(said, `${what}: ${sample.name}`).toContain(visibleForm(around(sample)));
      }
    }
  });

  it('a batch file whose name the person gave, in the error that quotes it', async () => {
    const base = makeTempDir('airlock-cli-lines-');
    for (const sample of HOSTILE_SAMPLES) {
      if (sample.text === '\u0000') continue;
      const io = testIO(base, join(base, 'home'));
      expect(await run(['batch', `calls${around(sample)}.json`], io)).toBe(2);
      expectShown(io.err(), sample.name);
      expect(io.err(), sample.name).toContain(`Cannot read the batch file calls${visibleForm(around(sample))}.json`);
    }
  });

  it('policy explain: the tool name and the arguments of the call it explains', async () => {
    const base = makeTempDir('airlock-cli-lines-');
    const project = join(base, 'project');
    mkdirSync(project, { recursive: true });
    for (const group of groups(12)) {
      const text = group.map(around).join('');
      for (const args of [['write', JSON.stringify({ path: text, content: 'x' })], [`w${text}`, JSON.stringify({ [text]: 1 })]]) {
        const io = testIO(project, join(base, 'home'));
        await run(['policy', 'explain', ...args], io);
        const what = group.map((s) => s.name).join(', ');
        expectShown(io.out() + io.err(), what);
        for (const sample of group) expect(io.out(), `${what}: ${sample.name}`).toContain(visibleForm(sample.text));
      }
    }
  });

  it('replay: a transcript path the person gave, in the error that quotes it', async () => {
    const base = makeTempDir('airlock-cli-lines-');
    for (const sample of HOSTILE_SAMPLES) {
      if (sample.text === '\u0000') continue;
      const io = testIO(base, join(base, 'home'));
      expect(await run(['replay', `./t${around(sample)}.jsonl`], io)).toBe(2);
      expectShown(io.err(), sample.name);
      expect(io.err(), sample.name).toContain(`t${visibleForm(around(sample))}.jsonl`);
    }
  });
});
