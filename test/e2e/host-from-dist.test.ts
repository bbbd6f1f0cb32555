import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

describe('a host opened from the built packages (as the SDK and a plain Node program do)', () => {
  it("answers the first parallel bash calls of a new host: none is denied while the shell parser's module loads", () => {
    const s = sandbox();
    mkdirSync(join(s.base, 'ws'), { recursive: true });
    const script = join(s.base, 'first-calls.mjs');
    writeFileSync(
      script,
      [
        `const { openHost } = await import(${JSON.stringify(join(ROOT, 'packages/host/dist/index.js'))});`,
        `const host = await openHost({ cwd: ${JSON.stringify(join(s.base, 'ws'))}, interactive: false, env: { HOME: ${JSON.stringify(s.home)}, PATH: process.env.PATH }, homeDir: ${JSON.stringify(s.home)} });`,
        "const results = await Promise.all([1, 2, 3, 4].map((i) => host.execute({ id: `c${i}`, name: 'bash', arguments: { command: `echo call-${i}` } })));",
        "for (const r of results) console.log(JSON.stringify({ outcome: r.outcome, text: r.content.map((c) => c.text).join('') }));",
        'await host.close();',
      ].join('\n'),
    );
    // Once, the second import of the parser's module in flight came back undefined under jiti, and
    // every call of the first burst was denied as "command analysis failed".
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { outcome: string; text: string });
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(results.map((r) => r.text.trim())).toEqual(['call-1', 'call-2', 'call-3', 'call-4']);
  });

  // issue 25: the SDK transpiled every built-in extension with jiti on every openHost (seconds).
  it("opens through the SDK's dist with Airlock's own extensions as compiled JavaScript: jiti is never loaded", () => {
    const s = sandbox();
    mkdirSync(join(s.base, 'ws'), { recursive: true });
    const script = join(s.base, 'open-sdk.mjs');
    writeFileSync(
      script,
      [
        "import { createRequire } from 'node:module';",
        `const { openHost } = await import(${JSON.stringify(join(ROOT, 'packages/sdk/dist/index.js'))});`,
        `const host = await openHost({ cwd: ${JSON.stringify(join(s.base, 'ws'))}, interactive: false, env: { HOME: ${JSON.stringify(s.home)}, PATH: process.env.PATH }, homeDir: ${JSON.stringify(s.home)} });`,
        "const read = await host.execute({ id: 'c1', name: 'ls', arguments: { path: '.' } });",
        // jiti's ESM entry requires its CommonJS build: once loaded, it is in the require cache.
        "const jiti = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/jiti/'));",
        'console.log(JSON.stringify({ loaded: host.extensions.loaded.map((e) => `${e.spec}:${e.status}`), jiti, outcome: read.outcome }));',
        'await host.close();',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { loaded: string[]; jiti: string[]; outcome: string };
    expect(report.loaded.length).toBeGreaterThanOrEqual(11);
    expect(report.loaded.filter((l) => !l.endsWith(':loaded'))).toEqual([]);
    expect(report.jiti).toEqual([]);
    expect(report.outcome).toBe('ok');
  }, scaledMs(150_000));

  // issue 25: the first calls of a host must not depend on which extension imports a shared module
  // first. Every built-in tool at once, on fresh hosts (fresh processes), through the SDK.
  it('decides a burst of first calls of every built-in tool at once, on several fresh hosts', async () => {
    const s = sandbox();
    const script = join(s.base, 'first-burst.mjs');
    writeFileSync(
      script,
      [
        "import { mkdirSync, writeFileSync } from 'node:fs';",
        "import { join } from 'node:path';",
        `const { openHost } = await import(${JSON.stringify(join(ROOT, 'packages/sdk/dist/index.js'))});`,
        `const cwd = join(${JSON.stringify(s.base)}, process.argv[2]);`,
        'mkdirSync(cwd);',
        "writeFileSync(join(cwd, 'a.txt'), 'hello world\\n');",
        "writeFileSync(join(cwd, 'c.txt'), 'old text\\n');",
        `const host = await openHost({ cwd, interactive: false, env: { HOME: ${JSON.stringify(s.home)}, PATH: process.env.PATH }, homeDir: ${JSON.stringify(s.home)} });`,
        'const calls = [',
        "  ['bash', { command: 'echo hi' }],",
        "  ['read', { path: 'a.txt' }],",
        "  ['write', { path: 'b.txt', content: 'new\\n' }],",
        "  ['edit', { path: 'c.txt', edits: [{ oldText: 'old', newText: 'new' }] }],",
        "  ['grep', { pattern: 'hello' }],",
        "  ['find', { pattern: '*.txt' }],",
        "  ['ls', { path: '.' }],",
        '];',
        'const results = await Promise.all(calls.map(([name, args], i) => host.execute({ id: `c${i}`, name, arguments: args })));',
        "for (const r of results) console.log(JSON.stringify({ tool: r.toolName, outcome: r.outcome, text: r.content.map((c) => c.text ?? '').join('') }));",
        'await host.close();',
      ].join('\n'),
    );
    const hosts = ['ws1', 'ws2', 'ws3'];
    const runs = await Promise.all(hosts.map((ws) => runNode(script, [ws])));
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { tool: string; outcome: string; text: string });
      expect(results.map((r) => `${r.tool}:${r.outcome}`)).toEqual(['bash:ok', 'read:ok', 'write:ok', 'edit:ok', 'grep:ok', 'find:ok', 'ls:ok']);
      expect(results[0]!.text.trim()).toBe('hi');
      expect(results[4]!.text).toContain('a.txt:1: hello world');
    }
  }, scaledMs(300_000));
});

function runNode(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
