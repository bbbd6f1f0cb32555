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
