import { chmodSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** The reference filesystem MCP server, as published (a devDependency of these tests). */
const SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

const CHECK = '#!/bin/sh\nif grep -q forbidden; then echo "forbidden word" >&2; exit 2; fi\nexit 0\n';

/** The `resources` of the mcp-tools README's filesystem example, read from the README itself. */
function readmeMapping(): Record<string, unknown> {
  const readme = readFileSync(join(ROOT, 'extensions/tools/mcp-tools/README.md'), 'utf8');
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('"write_file"'));
  if (block === undefined) throw new Error('the README has no filesystem example with per-tool resources');
  return (JSON.parse(`{${block}}`) as { filesystem: { resources: Record<string, unknown> } }).filesystem.resources;
}

/**
 * The trial's attack: overwrite the command-hook script that polices bash through the reference
 * server's write_file. The OS sandbox is off, so nothing but the policy stands in the way: the
 * old README's mapping, the new one, and no mapping at all must each deny (or ask, which with
 * nobody to ask is a denial).
 */
describe('airlock call: an upstream filesystem server cannot overwrite a protected hook script, whatever its mapping', { timeout: scaledMs(120_000) }, () => {
  it('old server-wide mapping, the README’s per-tool mapping, no mapping: write_file of the hook script is refused by policy; reads still read', async () => {
    const s = sandbox();
    mkdirSync(join(s.project, '.claude', 'hooks'), { recursive: true });
    const script = s.write('project/.claude/hooks/check.sh', CHECK);
    chmodSync(script, 0o755);
    s.write('project/notes.txt', 'plain notes\n');
    symlinkSync('.claude/hooks', join(s.project, 'hk'));
    const settings = (resources: Record<string, unknown> | undefined) => ({
      sandbox: { mode: 'off' },
      permissions: { allow: ['bash(*)'] },
      extensions: [
        { name: '@airlock/mcp-tools', options: { mcpServers: { filesystem: { command: process.execPath, args: [SERVER, s.project], startup: 'eager', ...(resources === undefined ? {} : { resources }) } } } },
        { name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh' }] }] } } },
      ],
    });
    const attack = (path: string) => JSON.stringify({ path, content: '#!/bin/sh\nexit 0\n' });

    for (const [label, resources, rule] of [
      ['the old README: {"path": "fs.read"}', { path: 'fs.read' }, 'command-hooks/protect-hook-scripts'],
      ['the README now', readmeMapping(), 'command-hooks/protect-hook-scripts'],
      ['no mapping', undefined, 'default:unknown-effects'],
    ] as const) {
      s.write('home/.config/airlock/settings.json', settings(resources));
      // One process per mapping: the three spellings of the script and a read, as one batch.
      const spellings = ['.claude/hooks/check.sh', join(s.project, '.claude/hooks/check.sh'), 'hk/check.sh'];
      // With a mapping, an ordinary write inside the workspace runs.
      const batch = [
        ...spellings.map((path) => ({ name: 'filesystem__write_file', arguments: JSON.parse(attack(path)) as unknown })),
        { name: 'filesystem__read_text_file', arguments: { path: 'notes.txt' } },
        ...(resources === undefined ? [] : [{ name: 'filesystem__write_file', arguments: { path: 'out.txt', content: label } }]),
      ];
      const r = await s.airlock(['batch', '-'], { stdin: JSON.stringify(batch) });
      const sections = r.stdout.split(/^── /m).slice(1);
      expect(sections.length, `${label}: ${r.stdout}${r.stderr}`).toBe(batch.length);
      for (const [i, path] of spellings.entries()) {
        expect(sections[i], `${label}, ${path}`).toMatch(/→ denied ──/);
        expect(sections[i], `${label}, ${path}`).toContain(rule);
      }
      expect(sections[3], label).toMatch(/→ ok ──[\s\S]*plain notes/);
      expect(readFileSync(script, 'utf8'), label).toBe(CHECK);
      if (resources !== undefined) expect(readFileSync(join(s.project, 'out.txt'), 'utf8')).toBe(label);
    }

    // With the README's mapping, policy explain names the entry that judged the call.
    s.write('home/.config/airlock/settings.json', settings(readmeMapping()));
    const explained = await s.airlock(['policy', 'explain', 'filesystem__write_file', attack('hk/check.sh')]);
    expect(explained.stdout).toContain('filesystem__write_file is judged by mcpServers.filesystem.resources["write_file"], as {"path":["fs.write"]}');
    expect(explained.stdout).toContain(join(s.project, '.claude/hooks/check.sh'));
    expect(explained.stdout).toMatch(/decision: deny/);
  });
});
