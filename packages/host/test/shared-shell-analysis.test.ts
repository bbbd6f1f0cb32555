import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResultMessage } from '@airlock/contract';
import { openHost, type Host } from '../src/index.js';
import { removeTempDirs, tempDir, writePackage } from './extensions/fixtures.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * A third-party policy judges bash with what the kernel gives every handler, nothing of its own:
 * no tokenizer, no parser import. It denies any call that runs curl, and any command line whose
 * analysis is unsure (then curl may run without being seen).
 */
const NO_CURL = `export default {
  name: 'no-curl',
  setup(api: any) {
    api.on('tool_call', async (event: any) => {
      for (const r of event.resources) {
        if (r.kind !== 'exec') continue;
        const analysis = await event.analyzeCommand?.(r.command);
        if (analysis === undefined) return { effect: 'deny', reason: 'no-curl: this tool does not say what its commands run' };
        if (!analysis.ok) return { effect: 'deny', reason: 'no-curl: cannot tell what runs (' + analysis.reason + ')' };
        if (analysis.commands.some((c: any) => c.name === 'curl')) return { effect: 'deny', reason: 'no-curl: curl is not allowed here' };
      }
      return undefined;
    }, { name: 'no-curl/guard', phase: 'authorize' });
  },
};
`;

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

async function open(): Promise<{ host: Host; project: string }> {
  const root = tempDir('airlock-shared-analysis-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project);
  const guard = writePackage(join(root, 'exts', 'no-curl'), { name: 'no-curl', files: { 'src/index.ts': NO_CURL } });
  // bash(*) so that path-policy allows every command here: what is denied, no-curl denied.
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [{ path: guard }], permissions: { allow: ['bash(*)', 'net(*)'] } }));
  const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home });
  hosts.push(host);
  expect(host.blocked).toBeUndefined();
  return { host, project };
}

const text = (m: ToolResultMessage) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('a third-party policy judges bash from the shared analysis alone', { timeout: scaledMs(60_000) }, () => {
  it.each([
    ['curl https://example.invalid', 'curl is not allowed'],
    ['/usr/bin/curl -s https://example.invalid', 'curl is not allowed'],
    ["c''u\\rl https://example.invalid", 'curl is not allowed'],
    ['echo start && bash -c "curl https://example.invalid"', 'curl is not allowed'],
    ['echo "$(curl -s https://example.invalid)"', 'curl is not allowed'],
    ['sudo -n env X=1 curl https://example.invalid', 'curl is not allowed'],
    ['x=curl; $x https://example.invalid > out.txt', 'cannot tell what runs'],
    ['eval "$CMD"', 'cannot tell what runs'],
    // A line continuation inside a word: bash joins it, so this is curl.
    ['cu\\\nrl --version', 'curl is not allowed'],
    ['echo $(cu\\\nrl -s https://example.invalid)', 'curl is not allowed'],
    // coproc and trap run the command after them.
    ['coproc curl --version > v.txt', 'curl is not allowed'],
    ['coproc NAME { curl https://example.invalid; }', 'curl is not allowed'],
    ["trap 'curl --version' EXIT", 'curl is not allowed'],
    // Programs that run their arguments as a command.
    ['taskset -c 0 curl https://example.invalid', 'curl is not allowed'],
    ['prlimit curl https://example.invalid', 'curl is not allowed'],
    ['setarch x86_64 curl https://example.invalid', 'curl is not allowed'],
    ['chrt -o 0 curl https://example.invalid', 'curl is not allowed'],
    ["script -qc 'curl https://example.invalid' /dev/null", 'curl is not allowed'],
    ['fakeroot curl https://example.invalid', 'curl is not allowed'],
    ['flock /tmp/airlock-no-curl.lock curl https://example.invalid', 'curl is not allowed'],
    ['strace -f curl https://example.invalid', 'curl is not allowed'],
    ['chroot / curl https://example.invalid', 'curl is not allowed'],
    ['unshare -r curl https://example.invalid', 'curl is not allowed'],
    ['nsenter -t 1 -n curl https://example.invalid', 'curl is not allowed'],
    ['parallel curl ::: https://example.invalid', 'curl is not allowed'],
    ["su -c 'curl https://example.invalid'", 'curl is not allowed'],
    ['gdb --args curl https://example.invalid', 'curl is not allowed'],
    ["busybox sh -c 'curl https://example.invalid'", 'curl is not allowed'],
    ['taskset --bogus 0 curl https://example.invalid', 'cannot tell what runs'],
  ])('%s: denied by no-curl, and nothing ran', async (command, says) => {
    const { host, project } = await open();
    const msg = await host.execute({ id: 'c', name: 'bash', arguments: { command: `${command}; echo ran > marker.txt` } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain(says);
    expect(text(msg)).toContain('no-curl');
    expect(existsSync(join(project, 'marker.txt'))).toBe(false);
  });

  it('ordinary commands run, including ones that only mention curl', async () => {
    const { host, project } = await open();
    const msg = await host.execute({ id: 'c', name: 'bash', arguments: { command: 'echo curl is a word here > notes.txt && cat notes.txt' } });
    expect(msg.outcome).toBe('ok');
    expect(text(msg)).toContain('curl is a word here');
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('curl is a word here\n');
  });

  it('ordinary commands behind trap, coproc, a wrapper or a line continuation run', async () => {
    const { host, project } = await open();
    const command = "trap 'echo bye > bye.txt' EXIT; nohup ec\\\nho hi > hi.txt 2>/dev/null; coproc { true; }";
    const msg = await host.execute({ id: 'c', name: 'bash', arguments: { command } });
    expect(msg.outcome, text(msg)).toBe('ok');
    expect(readFileSync(join(project, 'hi.txt'), 'utf8')).toBe('hi\n');
    expect(readFileSync(join(project, 'bye.txt'), 'utf8')).toBe('bye\n');
  });
});
