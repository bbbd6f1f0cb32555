import { describe, expect, it } from 'vitest';
import { around, HOSTILE_SAMPLES, rawHostile, spoofedLines, visibleForm } from '@airlock/kernel/testing';
import type { ArgsChange, Resource, Vote } from '@airlock/contract';
import { promptText, type PromptFacts } from '../src/prompt.js';

/**
 * Issue 24 §6: every field of the approval prompt, each hostile character and sequence in turn.
 * Before, a line break in an argument (a path, a nested value) reached the terminal as a line
 * break, so the text after it stood on a line of its own and could pass for another argument.
 */
const BASE: PromptFacts = {
  tool: 'write',
  args: { path: 'notes.txt', content: 'hello' },
  proposedArgs: { path: 'notes.txt', content: 'hello' },
  provenance: [],
  asking: [{ effect: 'ask', handler: 'path-policy', rule: 'default:write-outside-roots', reason: 'writing outside the project' } as Vote],
  resources: [{ kind: 'fs.write', path: '/p/notes.txt', written: 'notes.txt' }],
};

/** Each field a model, a file, a tool, a rule or an extension fills, with the hostile text put in it. */
const FIELDS: Record<string, (text: string) => PromptFacts> = {
  'tool name': (t) => ({ ...BASE, tool: t }),
  'argument key': (t) => ({ ...BASE, args: { [t]: 'x' } }),
  'path (a file the call touches)': (t) => ({ ...BASE, args: { path: t, content: 'x' }, resources: [{ kind: 'fs.write', path: `/p/${t}`, written: t }] }),
  'host (a host the call reaches)': (t) => ({ ...BASE, tool: 'fetch', args: { url: t }, resources: [{ kind: 'net', host: 'example.com', url: t }] as Resource[] }),
  'nested value': (t) => ({ ...BASE, tool: 'up__tool', args: { options: { path: t, list: [t] } }, resources: [] }),
  'rule': (t) => ({ ...BASE, asking: [{ effect: 'ask', handler: 'path-policy', rule: t, reason: 'r' } as Vote] }),
  'reason': (t) => ({ ...BASE, asking: [{ effect: 'ask', handler: 'path-policy', rule: 'ask-x', reason: t } as Vote] }),
  'handler that asked': (t) => ({ ...BASE, asking: [{ effect: 'ask', handler: t } as Vote] }),
  'handler that changed the arguments': (t) => ({
    ...BASE,
    proposedArgs: { path: 'a.txt', content: 'x' },
    provenance: [{ handler: t, phase: 'transform', before: {}, after: {} } as unknown as ArgsChange],
  }),
  'proposed value': (t) => ({ ...BASE, proposedArgs: { path: 'notes.txt', content: t }, provenance: [{ handler: 'acme/fix' } as unknown as ArgsChange] }),
};

/** Fields shown on one line whatever they hold; the others (a command, a file's content) may span lines, each behind the gutter. */
const ONE_LINE = new Set(['tool name', 'argument key', 'path (a file the call touches)', 'host (a host the call reaches)', 'rule', 'reason', 'handler that asked', 'handler that changed the arguments']);

describe('the approval prompt shows every hostile character visibly, in every field', () => {
  for (const [field, facts] of Object.entries(FIELDS)) {
    it(field, () => {
      for (const sample of HOSTILE_SAMPLES) {
        const text = promptText(facts(around(sample)));
        const what = `${sample.name} in the ${field}:\n${text}`;
        // Nothing a terminal obeys or hides; Airlock's own line breaks only.
        expect(rawHostile(text, { lines: true }), what).toEqual([]);
        // No line break from the field starts a line of its own.
        expect(spoofedLines(text), what).toEqual([]);
        // Readable: the escape a person can read is there (a nested value is JSON, whose backslashes are doubled).
        if (field === 'nested value') for (const char of sample.text) expect(text, what).toContain(char === '\n' || char === '\\' ? char : visibleForm(char));
        else if (ONE_LINE.has(field) || sample.text !== '\n') expect(text, what).toContain(visibleForm(sample.text));
      }
    });
  }

  it('a value of several lines goes under its key, each of its lines behind the gutter', () => {
    const text = promptText({ ...BASE, tool: 'bash', args: { command: 'cd build\n  path: /etc/passwd\nmake' }, resources: [{ kind: 'exec', command: 'cd build' }] });
    expect(text.split('\n').slice(2)).toEqual(['  command:', '    │ cd build', '    │   path: /etc/passwd', '    │ make']);
  });

  it("a path the call touches stays on one line, its line break shown as \\n (the trial's case)", () => {
    const path = 'out\u001b]52;c;ZXZpbA==\u0007\u202Egnp.txt\n  content: harmless';
    const text = promptText({ ...BASE, args: { path, content: 'x' }, resources: [{ kind: 'fs.write', path: `/p/${path}`, written: path }] });
    expect(text).toContain('  path: out\\u001B]52;c;ZXZpbA==\\u0007\\u202Egnp.txt\\n  content: harmless\n  content: x');
  });
});
