import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';

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
});
