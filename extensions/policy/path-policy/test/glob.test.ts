import { describe, expect, it } from 'vitest';
import { commandGlob, hostGlob, toolGlob } from '../src/glob.js';

describe('a backslash makes the next character literal (how a saved "always allow" spells a call)', () => {
  it('in command patterns: \\* is a star, not a wildcard; \\( \\) \\\\ are themselves', () => {
    expect(commandGlob('ls \\*.ts').test('ls *.ts')).toBe(true);
    expect(commandGlob('ls \\*.ts').test('ls secret.ts')).toBe(false);
    expect(commandGlob('ls *.ts').test('ls secret.ts')).toBe(true);
    expect(commandGlob('echo \\(x\\) \\\\n').test('echo (x) \\n')).toBe(true);
    expect(commandGlob('git push \\*').test('git push origin')).toBe(false);
    expect(commandGlob('git push *').test('git push origin')).toBe(true);
  });

  it('in tool and host patterns too; a lone trailing backslash is an error', () => {
    expect(toolGlob('mcp:a\\*b').test('mcp:a*b')).toBe(true);
    expect(toolGlob('mcp:a\\*b').test('mcp:axxb')).toBe(false);
    expect(hostGlob('a\\*.example.com').test('a*.example.com')).toBe(true);
    expect(() => commandGlob('echo \\')).toThrow(/lone/);
  });
});

describe('rule globs match in linear time (issue 24 §3): many stars, long subjects', () => {
  it('every kind of glob answers on a long subject, and decides short ones as expected', async () => {
    const { pathGlob } = await import('../src/glob.js');
    const long = 'a'.repeat(5000);
    for (let stars = 2; stars <= 26; stars += 4) {
      const body = `${'*a'.repeat(stars)}*b`;
      expect(commandGlob(`echo ${body}`).test(`echo ${long}`), body).toBe(false);
      expect(commandGlob(`echo ${body}`).test(`echo ${long}b`), body).toBe(true);
      expect(toolGlob(`mcp:${body}`).test(`mcp:${long}`)).toBe(false);
      expect(hostGlob(`${body}.example.com`).test(`${long}.example.com`)).toBe(false);
      expect(pathGlob(`/w/**/${body}`, false).test(`/w/x/${long}`)).toBe(false);
      expect(pathGlob(`/w/**/${body}`, true).test(`/w/x/${long}B`)).toBe(true);
      expect(pathGlob(`/w/${'**/a/'.repeat(stars)}b`, false).test(`/w/${'a/'.repeat(300)}c`)).toBe(false);
    }
  }, 60_000);
});
