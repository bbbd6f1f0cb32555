import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';
import { makeTempDir } from '@airlock/kernel/testing';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const hasSocat = (() => {
  try {
    execFileSync('socat', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A project with a settings file of rules, and a home of its own (nothing real is read). */
function project(permissions: object) {
  const base = makeTempDir('airlock-cli-policy-');
  const dir = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
  writeFileSync(join(dir, 'README.md'), '# hi\n');
  writeFileSync(join(dir, '.env'), 'TOKEN=1\n');
  symlinkSync(join(dir, '.env'), join(dir, 'notes.txt'));
  const settings = join(dir, 'airlock.json');
  writeFileSync(settings, JSON.stringify({ permissions }));
  return { dir, home, settings };
}

describe('airlock policy explain', () => {
  it('names the matched rule with its layer and file, the resources and the decision', async () => {
    const p = project({ deny: [{ match: 'fs.read(/README.md)', id: 'no-readme', reason: 'private' }] });
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'read', '{"path":"README.md"}'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain(`fs.read README.md  [written]`);
    expect(out).toMatch(/deny\s+fs\.read\(\/README\.md\) \(id no-readme\)\s+\[project: .*airlock\.json\]/);
    expect(out).toContain('decision: deny (no-readme)');
  });

  it('names each matched rule with the layer and file it came from, one from the user settings and one from the project', async () => {
    const p = project({ ask: ['fs.read(/README.md)'] });
    const userFile = join(p.home, '.config', 'airlock', 'settings.json');
    writeFileSync(userFile, JSON.stringify({ permissions: { deny: [{ match: 'read', id: 'no-read' }] } }));
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'read', '{"path":"README.md"}'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain(`deny  read (id no-read)  [user: ${userFile}]`);
    expect(out).toContain(`ask   fs.read(/README.md)  [project: ${p.settings}]`);
    expect(out).toContain('decision: deny (no-read)');
  });

  it('follows a symlink through the real tool: the link and its target (.env) are both judged', async () => {
    const p = project({});
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, '--json', 'policy', 'explain', 'read', '{"path":"notes.txt"}'], io)).toBe(0);
    const report = JSON.parse(io.out()) as { effect: string; rule: string; resources: { kind: string; path: string; from: string }[] };
    expect(report.effect).toBe('deny');
    expect(report.rule).toBe('default:secret-read');
    // The read tool's own resources() reported the real file.
    expect(report.resources).toContainEqual(expect.objectContaining({ kind: 'fs.read', path: join(p.dir, '.env'), from: 'resource' }));
  });

  it('shows the shell parse of a bash command and denies a secret read inside it', async () => {
    const p = project({ ask: ['bash(git push *)'] });
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'bash', '{"command":"git push origin && cat ~/.ssh/id_rsa"}'], io)).toBe(0);
    expect(io.out()).toContain('shell parse:');
    expect(io.out()).toContain('["git","push","origin"]');
    expect(io.out()).toMatch(/ask\s+bash\(git push \*\)/);
    expect(io.out()).toContain('decision: deny (default:secret-read)');
  });

  it('shows the sandbox profile a bash command would run under: the workspace writable, the secret hidden', async () => {
    const p = project({});
    const io = testIO(p.dir, p.home);
    // With PATH, so bubblewrap is found where it is installed.
    io.env = { ...io.env, PATH: process.env.PATH };
    expect(await run(['--settings', p.settings, '--json', 'policy', 'explain', 'bash', '{"command":"ls"}'], io)).toBe(0);
    const report = JSON.parse(io.out()) as { sandbox?: string };
    expect(report.sandbox).toBeDefined();
    if (report.sandbox!.startsWith('none:')) {
      // No bubblewrap here: explain says so, with what is missing.
      console.warn('!!! bubblewrap missing: only the "no sandbox" line of policy explain was checked');
      expect(report.sandbox).toContain('bubblewrap');
      return;
    }
    expect(report.sandbox).toContain(`writable: ${p.dir}`);
    expect(report.sandbox).toMatch(new RegExp(`hidden: .*${p.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.env`));
    expect(report.sandbox).toContain('network: none');

    // A host the command names is opened for it alone, if the call is allowed (here it would ask).
    const curl = testIO(p.dir, p.home);
    curl.env = io.env;
    expect(await run(['--settings', p.settings, '--json', 'policy', 'explain', 'bash', '{"command":"curl -s https://registry.npmjs.org/"}'], curl)).toBe(0);
    const asked = JSON.parse(curl.out()) as { effect: string; sandbox: string; hosts: string[] };
    expect(asked.effect).toBe('ask');
    expect(asked.hosts).toEqual(['registry.npmjs.org']);
    if (hasSocat) expect(asked.sandbox).toContain('network: only registry.npmjs.org for this command alone, once its call is allowed');
    else expect(asked.sandbox).toContain('network: none');
  });

  it('says when the arguments do not fit the tool, and when there is no such tool', async () => {
    const p = project({});
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'read', '{"nope":1}'], io)).toBe(0);
    expect(io.out()).toContain('the kernel would answer invalid');
    const io2 = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'nosuchtool', '{}'], io2)).toBe(0);
    expect(io2.out()).toContain('no tool "nosuchtool" is registered');
  });

  it('bad JSON is a usage error (exit 2)', async () => {
    const p = project({});
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'explain', 'read', '{oops'], io)).toBe(2);
    expect(io.err()).toContain('not valid JSON');
  });
});

describe('airlock policy test', () => {
  it('exit 0 when every inline example holds', async () => {
    const p = project({ deny: [{ match: 'bash(git push --force*)', examples: { match: ['bash(git push --force origin)'], notMatch: ['bash(git push origin)'] } }] });
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test'], io)).toBe(0);
    expect(io.out()).toContain('1 rule, 1 with examples, 0 failing');
  });

  it('exit 1 naming the rule and the example that fails', async () => {
    const p = project({ deny: [{ match: 'fs.read(**/.env)', id: 'env', examples: { match: ['read(config/.env)'], notMatch: ['read(.env)'] } }] });
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test'], io)).toBe(1);
    expect(io.out()).toContain('FAIL The rule "fs.read(**/.env)" (id env)');
    expect(io.out()).toContain('should not match its example "read(.env)"');
  });

  it('a malformed rule fails the test (exit 1) with a message naming it and its list', async () => {
    const p = project({ deny: ['fs.read(.env)', 'fs.read(src/**x)'] });
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test'], io)).toBe(1);
    expect(io.err()).toMatch(/The rule "fs\.read\(src\/\*\*x\)" in permissions\.deny\[1\] \(project: .*airlock\.json\) is malformed: "\*\*" must be a whole path segment/);
  });

  it('replays recorded calls of every shape and reports what changed; --strict makes a change exit 1', async () => {
    const p = project({ deny: ['fs.read(/README.md)'] });
    const calls = join(p.dir, 'calls.jsonl');
    writeFileSync(
      calls,
      [
        JSON.stringify({ name: 'read', arguments: { path: 'README.md' } }),
        JSON.stringify({ id: 'c2', name: 'read', arguments: JSON.stringify({ path: 'README.md' }), decision: 'allow' }),
        JSON.stringify({ type: 'decision', tool: 'ls', args: {}, decision: { effect: 'allow' } }),
        'not json',
        '',
      ].join('\n'),
    );
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', 'calls.jsonl'], io)).toBe(0);
    expect(io.out()).toContain('calls.jsonl:2 read {"path":"README.md"} → deny (was allow) CHANGED');
    expect(io.out()).toContain('calls.jsonl:3 ls {} → allow (same as recorded)');
    expect(io.out()).toContain('3 recorded calls replayed, 1 decided differently');
    expect(io.err()).toContain('calls.jsonl:4: skipped: not JSON');
    const strict = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', '--strict', 'calls.jsonl'], strict)).toBe(1);
  });

  // The fixtures form docs/cli.md shows a security team: {name, arguments, decision} per line,
  // run with --strict. The lines are the documented ones, read from the doc itself.
  it('a fixtures file (the one docs/cli.md shows): --strict passes while every decision holds, fails when a rule changes one, and a misspelt decision fails naming the line', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
    const block = /\*\*Fixtures:[\s\S]*?```jsonl\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, 'the fixtures example in docs/cli.md').toBeDefined();
    const rules = { deny: ['exec(git push --force *)'], ask: ['exec(npm publish *)'] };
    const p = project(rules);
    writeFileSync(join(p.dir, 'policy-fixtures.jsonl'), block!);
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', '--strict', 'policy-fixtures.jsonl'], io), io.out() + io.err()).toBe(0);
    expect(io.out()).toContain('6 recorded calls replayed, 0 decided differently');
    expect(io.err()).not.toContain('skipped');

    // Someone drops the force-push rule: the fixture catches it.
    writeFileSync(p.settings, JSON.stringify({ permissions: { ask: rules.ask } }));
    const loosened = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', '--strict', 'policy-fixtures.jsonl'], loosened)).toBe(1);
    expect(loosened.out()).toContain('policy-fixtures.jsonl:5 bash {"command":"git push --force origin main"} → allow (was deny) CHANGED');

    writeFileSync(join(p.dir, 'typo.jsonl'), `${JSON.stringify({ name: 'read', arguments: { path: '.env' }, decision: 'denied' })}\n`);
    const typo = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', 'typo.jsonl'], typo)).toBe(1);
    expect(typo.out()).toContain('FAIL typo.jsonl:1: the expected decision "denied" is not one of "allow", "ask" or "deny"; write one of those');
  });

  it('a missing file is a usage error (exit 2)', async () => {
    const p = project({});
    const io = testIO(p.dir, p.home);
    expect(await run(['--settings', p.settings, 'policy', 'test', 'nope.jsonl'], io)).toBe(2);
  });
});
