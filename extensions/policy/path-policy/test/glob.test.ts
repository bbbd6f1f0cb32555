import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LinearRegExp } from '@airlock/toolkit/util';
import { commandGlob, hostGlob, pathGlob, toolGlob } from '../src/glob.js';
import { machine, policyFor } from './fixture.js';
import { scaledMs } from '@airlock/kernel/testing';

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
  }, scaledMs(60_000));
});

describe('who wrote a path glob decides its engine (issue 24 §3)', () => {
  it('a glob from settings or a person runs on RE2 and answers on many stars; only Airlock\'s own run natively', () => {
    const stars = `/w/${'*a'.repeat(14)}*b`;
    const long = `/w/${'a'.repeat(60)}`;
    expect(pathGlob(stars, false)).toBeInstanceOf(LinearRegExp);
    expect(pathGlob(stars, false, 'outside').test(long)).toBe(false);
    expect(pathGlob('/**/.env', false, 'airlock')).not.toBeInstanceOf(LinearRegExp);
    expect(pathGlob('/**/.env', false, 'airlock').test('/w/a/.env')).toBe(true);
  });

  it('extraSecrets come from settings: a many-star one is matched in linear time by a whole policy', () => {
    const m = machine();
    const p = policyFor(m, [], { extraSecrets: [`**/${'*a'.repeat(14)}*b`] });
    // A backtracking engine would take ages over this name; RE2 answers, and the pattern still works.
    expect(p.checkFile({ kind: 'fs.read', path: join(m.root, 'a'.repeat(60)), tool: 'read' }).effect).not.toBe('deny');
    expect(p.checkFile({ kind: 'fs.read', path: join(m.root, `${'a'.repeat(14)}b`), tool: 'read' }).effect).toBe('deny');
  });
});
