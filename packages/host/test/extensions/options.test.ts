import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { AuditOptions } from '../../../../extensions/policy/audit-log/src/options.js';
import { OptionsSchema as PathPolicyOptions } from '../../../../extensions/policy/path-policy/src/options.js';
import { BashOptions } from '../../../../extensions/tools/bash/src/index.js';
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

describe('an option the schema does not name is an error with the closest name', () => {
  it('at the top level, also when the schema leaves objects open', () => {
    const schema = Type.Object({ executionMode: Type.String({ default: 'parallel' }), verbose: Type.Boolean({ default: false }) });
    const r = validateOptions(schema, { mode: 'sequential' });
    expect(r).toEqual({ ok: false, errors: ['mode: unknown option "mode". Did you mean "executionMode"?'] });
  });

  it('inside nested objects (bash env.alow), and every one at once', () => {
    const r = validateOptions(BashOptions, { env: { alow: ['MY_*'] }, comandPrefix: 'x' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors).toEqual(['env.alow: unknown key "alow" in env. Did you mean "allow"?', 'comandPrefix: unknown option "comandPrefix". Did you mean "commandPrefix"?']);
  });

  it('with nothing close, it lists the keys there are', () => {
    const r = validateOptions(Type.Object({ a: Type.Optional(Type.Number()) }), { zzz: 1 });
    expect(!r.ok && r.errors[0]).toBe('zzz: unknown option "zzz". Known options: a.');
  });

  it('an object that says it takes any key (a Record, additionalProperties) stays open', () => {
    expect(validateOptions(Type.Object({ map: Type.Record(Type.String(), Type.Number()) }), { map: { anything: 1 } }).ok).toBe(true);
    expect(validateOptions(Type.Object({ a: Type.Number() }, { additionalProperties: Type.Number() }), { a: 1, b: 2 }).ok).toBe(true);
  });

  it('known options still load, with defaults filled in', () => {
    const r = validateOptions(BashOptions, { commandPrefix: 'set -o pipefail' });
    expect(r.ok && (r.value as { commandPrefix: string; defaultTimeoutSeconds: number })).toMatchObject({ commandPrefix: 'set -o pipefail', defaultTimeoutSeconds: 120 });
  });

  it("bash's commandPrefix is code: an untrusted layer's is dropped", () => {
    expect(valueKindOf(BashOptions.properties.commandPrefix)).toBe('code');
    const r = validateOptions(BashOptions, { commandPrefix: 'touch pwned' }, { untrusted: true });
    expect(r.ok && r.ignored).toEqual(['commandPrefix']);
    expect(r.ok && (r.value as { commandPrefix?: string }).commandPrefix).toBeUndefined();
  });
});
