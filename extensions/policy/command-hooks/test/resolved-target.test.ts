import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Resource } from '@airlock/contract';
import { machinesClosedAfterEach, type Hooks, type Machine } from './support.js';

/**
 * Every guard judges the same target: a command hook, a third-party policy's `event.resources`
 * and the audit record are all shown the file the tool really opens, whatever spelling the
 * model used to reach it (symlinked folders, chained links, links to files, dangling links to a
 * file not made yet, `..` after a link, relative or absolute), with the spelling beside it.
 *
 * The oracle is the disk, not the resolver: each case is built so its target is known by
 * construction, and an allowed write must land exactly there.
 */

const setup = machinesClosedAfterEach();

/**
 * A Claude-Code-style guard in plain sh (a python3 one takes 100+ ms to start on a busy machine,
 * and this test runs it 120 times): logs its input, and refuses any file tool whose
 * `tool_input.file_path` / `.path` is inside a folder named `protected`.
 */
const GUARD = `#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/hook-seen.jsonl"
p=$(printf '%s' "$input" | sed -n 's/.*"tool_input":{[^}]*"\\(file_\\)\\{0,1\\}path":"\\([^"]*\\)".*/\\2/p')
case "$p/" in */protected/*) echo "protected is read-only" >&2; exit 2;; esac
exit 0
`;

const MATCHER = 'Read|Write|Edit|Grep|Glob|LS';

interface Seen {
  tool_use_id: string;
  tool_input: Record<string, unknown>;
  tool_input_as_written?: Record<string, unknown>;
}

/** A way to name a folder: builds what it needs under `dir` and returns the spelling that leads to `dir/<dest>`. */
type FolderSpelling = { name: string; make: (dir: string, dest: string) => string };

const FOLDER_SPELLINGS: FolderSpelling[] = [
  { name: 'plain relative', make: (dir, dest) => rel(dir, join(dir, dest)) },
  { name: 'absolute', make: (dir, dest) => join(dir, dest) },
  { name: 'symlinked folder (relative link)', make: (dir, dest) => link(dir, 'ln', dest) },
  { name: 'symlinked folder (absolute link)', make: (dir, dest) => link(dir, 'ln', join(dir, dest)) },
  { name: 'chained links', make: (dir, dest) => (link(dir, 'b', dest), link(dir, 'a', 'b')) },
  { name: 'link inside a real folder', make: (dir, dest) => (mkdirSync(join(dir, 'x')), symlinkSync(`../${dest}`, join(dir, 'x', 'y')), rel(dir, join(dir, 'x', 'y'))) },
  { name: 'link to the parent folder', make: (dir, dest) => `${link(dir, 'up', '.')}/${dest}` },
  { name: '.. after a link, back inside it', make: (dir, dest) => `${link(dir, 'ln', dest)}/sub/..` },
  { name: '@ mention and ./', make: (dir, dest) => `@./${link(dir, 'ln', dest)}` },
];

let machineRoot = '';
/** `path` relative to the project folder (the tools' cwd). */
function rel(_dir: string, path: string): string {
  return relative(machineRoot, path);
}
function link(dir: string, name: string, target: string): string {
  symlinkSync(target, join(dir, name));
  return rel(dir, join(dir, name));
}

/** A case folder with `protected/` and `open/`, each holding `sub/` and `a.txt`. */
function caseFolder(m: Machine, n: number): string {
  const dir = join(m.project, `c${n}`);
  for (const d of ['protected', 'open']) {
    mkdirSync(join(dir, d, 'sub'), { recursive: true });
    writeFileSync(join(dir, d, 'a.txt'), `needle in ${d}\n`);
  }
  return dir;
}

function seenBy(m: Machine, id: string): Seen[] {
  const file = join(m.project, 'hook-seen.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Seen)
    .filter((s) => s.tool_use_id === id);
}

/** The files below `dir`, for "did the write land exactly where the target says". */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The decision records of the audit log, by call id (the last one: a re-check writes another). */
function auditResources(m: Machine): Map<string, unknown[]> {
  const root = join(m.base, 'state', 'airlock', 'audit');
  const out = new Map<string, unknown[]>();
  for (const project of readdirSync(root)) {
    for (const line of readFileSync(join(root, project, 'audit.jsonl'), 'utf8').split('\n')) {
      if (line === '') continue;
      const r = JSON.parse(line) as { type: string; toolCallId: string; resources: unknown[] };
      if (r.type === 'decision') out.set(r.toolCallId, r.resources);
    }
  }
  return out;
}

/** A third-party policy extension that only records what its authorize handler is shown. */
function resourceSpy(seen: Map<string, readonly Resource[]>) {
  return {
    extension: {
      name: 'resource-spy',
      setup(api: { on: (...a: unknown[]) => void }) {
        api.on('tool_call', (e: { toolCallId: string; resources: readonly Resource[] }) => void seen.set(e.toolCallId, e.resources), { name: 'resource-spy/authorize', phase: 'authorize' });
      },
    },
  };
}

interface Case {
  /** The case's own folder: nothing outside it may change. */
  dir: string;
  label: string;
  tool: string;
  args: Record<string, unknown>;
  spelling: string;
  /** The file or folder the call opens, known by construction. */
  target: string;
  /** A write: the file that must appear (or change) when the call is allowed. */
  lands?: boolean;
}

function fileCases(m: Machine, n: () => number): Case[] {
  const cases: Case[] = [];
  for (const dest of ['protected', 'open']) {
    for (const s of FOLDER_SPELLINGS) {
      // Into `open` the calls run: the writes show where they land. Into `protected` every tool is denied.
      for (const tool of dest === 'open' ? (['write', 'edit'] as const) : (['write', 'edit', 'read', 'ls', 'find', 'grep'] as const)) {
        const dir = caseFolder(m, n());
        const folder = s.make(dir, dest).replace(/\/$/, '');
        const label = `${tool} via ${s.name} into ${dest}`;
        const at = (name: string) => `${folder}/${name}`;
        if (tool === 'write') cases.push({ dir, label, tool, args: { path: at('new.txt'), content: 'landed\n' }, spelling: at('new.txt'), target: join(dir, dest, 'new.txt'), lands: true });
        if (tool === 'edit') cases.push({ dir, label, tool, args: { path: at('a.txt'), edits: [{ oldText: 'needle', newText: 'pin' }] }, spelling: at('a.txt'), target: join(dir, dest, 'a.txt'), lands: true });
        if (tool === 'read') cases.push({ dir, label, tool, args: { path: at('a.txt') }, spelling: at('a.txt'), target: join(dir, dest, 'a.txt') });
        if (tool === 'ls' || tool === 'find') cases.push({ dir, label, tool, args: tool === 'ls' ? { path: folder } : { path: folder, pattern: '*.txt' }, spelling: folder, target: join(dir, dest) });
        if (tool === 'grep') cases.push({ dir, label, tool, args: { path: folder, pattern: 'needle' }, spelling: folder, target: join(dir, dest) });
      }
    }
    // Links to a file: one that exists, one that dangles to a file not made yet, and a chain of those.
    let dir = caseFolder(m, n());
    symlinkSync(`${dest}/a.txt`, join(dir, 'fl'));
    for (const tool of ['edit', 'read', 'write'] as const) {
      const spelling = rel(dir, join(dir, 'fl'));
      const args = tool === 'write' ? { path: spelling, content: 'landed\n' } : tool === 'edit' ? { path: spelling, edits: [{ oldText: 'needle', newText: `pin-${tool}` }] } : { path: spelling };
      cases.push({ dir, label: `${tool} via a link to a file in ${dest}`, tool, args, spelling, target: join(dir, dest, 'a.txt'), lands: tool !== 'read' });
    }
    dir = caseFolder(m, n());
    symlinkSync(`${dest}/brand-new.txt`, join(dir, 'dl'));
    cases.push({ dir, label: `write via a dangling link to a new file in ${dest}`, tool: 'write', args: { path: rel(dir, join(dir, 'dl')), content: 'landed\n' }, spelling: rel(dir, join(dir, 'dl')), target: join(dir, dest, 'brand-new.txt'), lands: true });
    dir = caseFolder(m, n());
    symlinkSync(`${dest}/sub/deeper.txt`, join(dir, 'd2'));
    symlinkSync('d2', join(dir, 'd1'));
    cases.push({ dir, label: `write via a chain of dangling links into ${dest}`, tool: 'write', args: { path: rel(dir, join(dir, 'd1')), content: 'landed\n' }, spelling: rel(dir, join(dir, 'd1')), target: join(dir, dest, 'sub', 'deeper.txt'), lands: true });
    // `..` right after a link is taken as text, as the tools take it: the file lands beside the link, not in its target's parent.
    dir = caseFolder(m, n());
    symlinkSync(`${dest}/sub`, join(dir, 'ls'));
    cases.push({ dir, label: `write via .. straight after a link to ${dest}/sub`, tool: 'write', args: { path: `${rel(dir, join(dir, 'ls'))}/../beside.txt`, content: 'landed\n' }, spelling: `${rel(dir, join(dir, 'ls'))}/../beside.txt`, target: join(dir, 'beside.txt'), lands: true });
  }
  return cases;
}

describe('every guard judges the file the tool opens (generated spellings × surfaces)', () => {
  it('command hooks, event.resources and the audit record all see the real target; the hook holds for every spelling', async () => {
    const m = setup({ PreToolUse: [{ matcher: MATCHER, hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] }] }, { settings: { sandbox: { mode: 'off' } } });
    machineRoot = m.project;
    m.script('guard.sh', GUARD);
    let counter = 0;
    const cases = fileCases(m, () => ++counter);
    const spied = new Map<string, readonly Resource[]>();
    const host = await m.open({ modules: [resourceSpy(spied)] });
    const failures: string[] = [];
    let id = 0;
    for (const c of cases) {
      const callId = `t${++id}`;
      const before = filesBelow(c.dir);
      const beforeText = existsSync(c.target) && c.lands ? readFileSync(c.target, 'utf8') : undefined;
      const r = await host.execute({ id: callId, name: c.tool, arguments: c.args });
      const inProtected = c.target.split('/').includes('protected');
      const field = ['write', 'edit', 'read'].includes(c.tool) ? 'file_path' : 'path';
      const seen = seenBy(m, callId);
      const why = (what: string) => failures.push(`${c.label} (${c.spelling} → ${relative(m.project, c.target)}): ${what}`);
      // The hook: shown the target, and the spelling beside it; its rule holds.
      if (seen.length !== 1) why(`the hook ran ${seen.length} times`);
      for (const s of seen) {
        if (s.tool_input[field] !== c.target) why(`the hook was shown ${field} = ${String(s.tool_input[field])}`);
        if (s.tool_input_as_written?.[field] !== c.spelling) why(`tool_input_as_written.${field} = ${String(s.tool_input_as_written?.[field])}`);
      }
      if (inProtected !== (r.outcome === 'denied')) why(`outcome ${r.outcome}`);
      // A third-party policy and the audit record: the same target, the same spelling.
      const resources = spied.get(callId) ?? [];
      const file = resources.find((x) => x.kind === 'fs.read' || x.kind === 'fs.write') as { path: string; written?: string } | undefined;
      if (file?.path !== c.target || file.written !== c.spelling) why(`event.resources = ${JSON.stringify(resources)}`);
      // The disk: an allowed write lands exactly at the target; a denied one leaves everything as it was.
      const after = filesBelow(c.dir);
      const appeared = after.filter((f) => !before.includes(f));
      if (c.lands && !inProtected) {
        const changed = beforeText === undefined ? appeared.includes(c.target) && appeared.length === 1 : readFileSync(c.target, 'utf8') !== beforeText && appeared.length === 0;
        if (!changed) why(`the write did not land at the target (new files: ${appeared.map((f) => relative(m.project, f)).join(', ') || 'none'})`);
      } else if (appeared.length > 0 || (beforeText !== undefined && readFileSync(c.target, 'utf8') !== beforeText)) {
        why(`files changed although the call was ${r.outcome}: ${appeared.join(', ')}`);
      }
    }
    const audited = auditResources(m);
    id = 0;
    for (const c of cases) {
      const recorded = JSON.stringify(audited.get(`t${++id}`) ?? []);
      if (!recorded.includes(JSON.stringify(c.target))) failures.push(`${c.label}: the audit record's resources ${recorded} do not name ${c.target}`);
    }
    expect(failures).toEqual([]);
    expect(cases.length).toBeGreaterThan(80);
  });

  it('a link made by an earlier call of the same batch: the re-check shows the hook the new target, and the write is denied', async () => {
    const m = setup({ PreToolUse: [{ matcher: MATCHER, hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] }] }, { settings: { sandbox: { mode: 'off' } } });
    m.script('guard.sh', GUARD);
    mkdirSync(join(m.project, 'protected'));
    writeFileSync(join(m.project, 'protected', 'a.txt'), 'needle\n');
    const host = await m.open();
    const spellings = [
      ['ln -s protected p2', { name: 'write', arguments: { path: 'p2/x.txt', content: 'landed\n' } }],
      ['ln -s protected/late.txt dl', { name: 'write', arguments: { path: 'dl', content: 'landed\n' } }],
      ['ln -s protected/a.txt fl', { name: 'edit', arguments: { path: 'fl', edits: [{ oldText: 'needle', newText: 'pin' }] } }],
      ['mkdir -p q && ln -s ../protected q/r', { name: 'write', arguments: { path: 'q/r/y.txt', content: 'landed\n' } }],
    ] as const;
    for (const [i, [command, call]] of spellings.entries()) {
      const { messages } = await host.batch([
        { id: `b${i}-link`, name: 'bash', arguments: { command } },
        { id: `b${i}-file`, ...call },
      ]);
      expect(messages.map((x) => x.outcome), command).toEqual(['ok', 'denied']);
      const seen = seenBy(m, `b${i}-file`).map((s) => String(s.tool_input.file_path));
      // First judged before the link existed, then again by the re-check, shown the real target.
      expect(seen.length, command).toBe(2);
      expect(seen[1]!.startsWith(join(m.project, 'protected') + '/'), `${command}: ${seen.join(' then ')}`).toBe(true);
    }
    expect(readdirSync(join(m.project, 'protected'))).toEqual(['a.txt']);
    expect(readFileSync(join(m.project, 'protected', 'a.txt'), 'utf8')).toBe('needle\n');
  });

  it('PostToolUse hooks are shown the target the call was judged on; without PreToolUse hooks, where the path leads after the call', async () => {
    const post = { matcher: 'Write', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh' }] };
    for (const withPre of [true, false]) {
      const hooks: Hooks = withPre ? { PreToolUse: [{ matcher: MATCHER, hooks: post.hooks }], PostToolUse: [post] } : { PostToolUse: [post] };
      const m = setup(hooks, { settings: { sandbox: { mode: 'off' } } });
      m.script('guard.sh', GUARD);
      mkdirSync(join(m.project, 'open'));
      symlinkSync('open', join(m.project, 'o2'));
      symlinkSync('open/fresh.txt', join(m.project, 'dl'));
      const host = await m.open();
      for (const [i, path] of ['o2/x.txt', 'dl'].entries()) {
        const r = await host.execute({ id: `p${i}`, name: 'write', arguments: { path, content: 'x' } });
        expect(r.outcome).toBe('ok');
        const target = join(m.project, 'open', path === 'dl' ? 'fresh.txt' : 'x.txt');
        expect(existsSync(target)).toBe(true);
        const seen = readFileSync(join(m.project, 'hook-seen.jsonl'), 'utf8').split('\n').filter((l) => l.includes(`"p${i}"`)).map((l) => JSON.parse(l) as Seen & { hook_event_name: string });
        expect(seen.map((x) => x.hook_event_name)).toEqual(withPre ? ['PreToolUse', 'PostToolUse'] : ['PostToolUse']);
        for (const x of seen) expect([x.tool_input.file_path, x.tool_input_as_written?.file_path]).toEqual([target, path]);
      }
    }
  });
});
