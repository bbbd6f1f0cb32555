import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { AuditOptions } from '../../../../extensions/audit-log/src/options.js';
import { OptionsSchema as PathPolicyOptions } from '../../../../extensions/path-policy/src/options.js';
import { BashOptions } from '../../../../extensions/tool-bash/src/index.js';
import { validateOptions } from '../../src/extensions/index.js';
import { valueKindOf } from '../../src/settings/index.js';

describe('extension options that name a path or a program', () => {
  it("bash's shellPath, the audit log's path and path-policy's roots carry the mark", () => {
    expect(valueKindOf(BashOptions.properties.shellPath)).toBe('program');
    expect(valueKindOf(AuditOptions.properties.path)).toBe('path');
    expect(valueKindOf(PathPolicyOptions.properties.roots)).toBe('path');
  });

  it('from an untrusted layer, bash keeps its own shell; the other options still apply', () => {
    const written = { shellPath: '/tmp/evil-shell', killGraceMs: 500 };
    const untrusted = validateOptions(BashOptions, written, { untrusted: true });
    expect(untrusted).toMatchObject({ ok: true, ignored: ['shellPath'] });
    expect(untrusted.ok && untrusted.value).toEqual({ defaultTimeoutSeconds: 120, allowNoTimeout: false, killGraceMs: 500, limits: { fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 }, env: { allow: [], deny: [] } });
    const trusted = validateOptions(BashOptions, written);
    expect(trusted.ok && trusted.value).toMatchObject({ shellPath: '/tmp/evil-shell', killGraceMs: 500 });
  });

  it('from an untrusted layer, bash keeps its time and resource limits: a project could lift them', () => {
    const written = { defaultTimeoutSeconds: 0, allowNoTimeout: true, limits: { fileSizeBytes: 0, processes: 0, cpuSeconds: 0 } };
    const untrusted = validateOptions(BashOptions, written, { untrusted: true });
    expect(untrusted).toMatchObject({ ok: true, ignored: ['defaultTimeoutSeconds', 'allowNoTimeout', 'limits'] });
    expect(untrusted.ok && untrusted.value).toMatchObject({ defaultTimeoutSeconds: 120, allowNoTimeout: false, limits: { fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 } });
    const trusted = validateOptions(BashOptions, written);
    expect(trusted.ok && trusted.value).toMatchObject(written);
  });

  it('from an untrusted layer, the audit log stays where the user has it', () => {
    const result = validateOptions(AuditOptions, { path: '../../.bashrc', storeContent: true }, { untrusted: true });
    expect(result).toMatchObject({ ok: true, ignored: ['path'], value: { storeContent: true } });
    expect(result.ok && (result.value as { path?: string }).path).toBeUndefined();
  });

  it('a marked value the schema requires makes untrusted options invalid, never a value taken anyway', () => {
    const schema = Type.Object({ program: Type.String({ 'x-airlock-value': 'program' }) });
    expect(validateOptions(schema, { program: '/bin/sh' }, { untrusted: true })).toMatchObject({ ok: false });
    expect(validateOptions(schema, { program: '/bin/sh' })).toMatchObject({ ok: true, value: { program: '/bin/sh' }, ignored: [] });
  });
});
