import { describe, expect, it } from 'vitest';
import { airlockToolName } from '../src/tool-name.js';
import { fromMcpResult } from '../src/result.js';

describe('airlockToolName', () => {
  it('is <server>__<tool> in the characters every provider and the kernel take', () => {
    expect(airlockToolName('GitHub', 'createIssue')).toBe('github__create_issue');
    expect(airlockToolName('my server', 'read.file v2')).toBe('my_server__read_file_v2');
    expect(airlockToolName('fs', '***')).toBe('fs__x');
  });

  it('keeps long names within 64 characters, and two long names apart', () => {
    const a = airlockToolName('server', `${'a'.repeat(80)}_one`);
    const b = airlockToolName('server', `${'a'.repeat(80)}_two`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).toMatch(/^[a-z0-9_-]+$/);
    expect(a).not.toBe(b);
  });
});

describe('fromMcpResult', () => {
  it('keeps text and images, turns embedded resources into text and binaries into notes', () => {
    const r = fromMcpResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        { type: 'resource', resource: { uri: 'file:///c.png', mimeType: 'image/png', blob: 'BBBB' } },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///d', name: 'd' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.content).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: '[resource file:///a.txt (text/plain)]\ninside' },
      { type: 'text', text: '[a binary resource file:///b.bin (application/octet-stream), not shown]' },
      { type: 'image', data: 'BBBB', mimeType: 'image/png' },
      { type: 'text', text: "[audio (audio/wav), which Airlock does not pass to the model]" },
      { type: 'text', text: '[resource link] d file:///d' },
    ]);
  });

  it('an error result stays an error; structured content alone is shown as JSON', () => {
    expect(fromMcpResult({ content: [{ type: 'text', text: 'bad' }], isError: true }).isError).toBe(true);
    const structured = fromMcpResult({ content: [], structuredContent: { n: 1 } });
    expect(structured.content).toEqual([{ type: 'text', text: '{\n  "n": 1\n}' }]);
    expect(structured.details).toEqual({ structuredContent: { n: 1 } });
  });
});

describe('mcpResources', () => {
  it('maps named arguments to resources: paths resolved against cwd with `written` kept, lists item by item, hosts from URLs', async () => {
    const { mcpResources } = await import('../src/resources.js');
    const cwd = '/nonexistent-mcp-root';
    expect(mcpResources({ path: 'fs.read' }, { path: 'a/b.txt' }, { cwd })).toEqual([{ kind: 'fs.read', path: '/nonexistent-mcp-root/a/b.txt', written: 'a/b.txt' }]);
    expect(mcpResources({ paths: 'fs.read' }, { paths: ['x', '/y'] }, { cwd }).map((r) => (r as { path: string }).path)).toEqual(['/nonexistent-mcp-root/x', '/y']);
    expect(mcpResources({ url: 'net' }, { url: 'https://api.example.com:8443/v1' }, { cwd })).toEqual([{ kind: 'net', host: 'api.example.com' }]);
    expect(mcpResources({ path: 'fs.write' }, {}, { cwd })).toEqual([]);
    expect(() => mcpResources({ path: 'fs.read' }, { path: 7 }, { cwd })).toThrow(/mapped to fs\.read .* must be a non-empty string/);
  });
});
