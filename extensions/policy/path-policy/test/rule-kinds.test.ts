import { describe, expect, it } from 'vitest';
import { compileRules, RuleError } from '../src/rules/compile.js';

/** A misspelt resource kind must not load as a tool rule that matches nothing (a deny that guards nothing). */
const anchors = { roots: ['/work'], home: ['/home/u'] };
const compile = (rule: string, effect: 'deny' | 'ask' | 'allow' = 'deny') => () => compileRules([{ effect, rule }], anchors);

describe('rule kinds', () => {
  it('fs.raed(.env) is an error naming fs.read', () => {
    expect(compile('fs.raed(.env)')).toThrow(RuleError);
    expect(compile('fs.raed(.env)')).toThrow('Did you mean "fs.read"?');
    expect(compile('fs.wirte(/src/**)', 'ask')).toThrow('Did you mean "fs.write"?');
  });

  it('any dotted name that is not a kind is an error, even with nothing close', () => {
    expect(compile('foo.bar(x)')).toThrow('"foo.bar" is not a resource kind');
  });

  it('the four kinds and tool names still compile', () => {
    for (const rule of ['fs.read(**/.env)', 'fs.write(/src/**)', 'exec(git push *)', 'net(*.example.com)', 'bash(npm test*)', 'mcp:*', 'read']) {
      expect(compile(rule)).not.toThrow();
    }
  });
});
