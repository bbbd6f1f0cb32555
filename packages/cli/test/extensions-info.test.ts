import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/** `airlock extensions info <name>`: manifest, options with types and defaults, tools, hooks, and the commands an extension brings. */

vi.setConfig({ testTimeout: scaledMs(90_000) });

function machine(env: Record<string, string> = {}) {
  const base = makeTempDir('airlock-info-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(join(project, '.git'), { recursive: true });
  const airlock = async (args: string[]) => {
    const io = testIO(project, home);
    io.env = { ...io.env, ...env };
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { base, project, airlock };
}

describe('airlock extensions info', () => {
  it('shows a default extension: its hooks as registered, its options and the commands it brings', async () => {
    const m = machine();
    const r = await m.airlock(['extensions', 'info', '@airlock/audit-log']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('@airlock/audit-log 1.0.0 (policy)');
    expect(r.out).toMatch(/status:\s+loaded, from Airlock's default set/);
    expect(r.out).toMatch(/hooks:\s+tool_call:observe \(audit-log\//);
    expect(r.out).toMatch(/commands:\s+airlock audit: /);
    expect(r.out).toContain('airlock audit verify: ');
    expect(r.out).toMatch(/fsync\s+"always" \| "interval" \| "never"\s+"interval"/);

    const json = JSON.parse((await m.airlock(['--json', 'extensions', 'info', 'audit-log'])).out) as { name: string; status: string; commands: { name: string }[]; options: { key: string; default?: unknown }[] };
    expect(json.name).toBe('@airlock/audit-log');
    expect(json.status).toBe('loaded');
    expect(json.commands.map((c) => c.name)).toContain('audit verify');
    expect(json.options.find((o) => o.key === 'maxFiles')?.default).toBe(10);
  });

  it('reads an extension the settings do not name from its folder, without running its setup; its commands come from its manifest', async () => {
    const m = machine();
    const ext = join(m.base, 'ext');
    mkdirSync(join(ext, 'src'), { recursive: true });
    writeFileSync(join(ext, 'package.json'), JSON.stringify({ name: 'acme-ext', version: '2.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['t'] }, commands: [{ name: 'acme', summary: 'acme things', module: './src/acme.ts' }] } }));
    writeFileSync(join(ext, 'src/acme.ts'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(m.base, 'command-ran'))}, '');\nexport default { run: () => 0 };\n`);
    writeFileSync(
      join(ext, 'src/index.ts'),
      `import Type from 'typebox';
import { writeFileSync } from 'node:fs';
export default { name: 'acme-ext', options: Type.Object({ size: Type.Integer({ default: 4, description: 'how big' }) }), setup() { writeFileSync(${JSON.stringify(join(m.base, 'setup-ran'))}, ''); } };`,
    );
    const r = await m.airlock(['extensions', 'info', ext]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('acme-ext 2.0.0 (tool)');
    expect(r.out).toContain('not in the settings');
    expect(r.out).toMatch(/commands:\s+airlock acme: acme things/);
    expect(r.out).toMatch(/size\s+integer\s+4\s+how big/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(m.base, 'setup-ran'))).toBe(false);
    expect(existsSync(join(m.base, 'command-ran'))).toBe(false);
  });

  it("never imports an untrusted project's extension: its manifest only", async () => {
    const m = machine();
    const ext = join(m.project, 'ext');
    mkdirSync(join(ext, 'src'), { recursive: true });
    writeFileSync(join(ext, 'package.json'), JSON.stringify({ name: 'sneaky', version: '1.0.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['s'] } } }));
    writeFileSync(join(ext, 'src/index.ts'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(m.base, 'module-ran'))}, '');\nexport default { name: 'sneaky', setup() {} };\n`);
    writeFileSync(join(m.project, '.airlockrc.json'), JSON.stringify({ extensions: ['./ext'] }));
    const r = await m.airlock(['extensions', 'info', './ext']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('sneaky 1.0.0 (tool)');
    expect(r.out).toMatch(/status:\s+skipped/);
    expect(r.out).toContain('its options are not read: it belongs to a project that is not trusted');
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(m.base, 'module-ran'))).toBe(false);
  });

  it('names what to give for an extension it cannot find, here or on a registry it cannot reach', async () => {
    const m = machine({ PATH: process.env.PATH ?? '', npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: join(makeTempDir('airlock-info-npm-'), 'cache') });
    const r = await m.airlock(['extensions', 'info', 'no-such-extension']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('No extension "no-such-extension" is installed here, and the registry could not be asked');
    expect(r.err).toContain('ECONNREFUSED');
    expect(r.err).toContain("give a folder or the name as `airlock extensions` lists it");
    // A path is never looked up on a registry.
    const path = await m.airlock(['extensions', 'info', './no-such-folder']);
    expect(path.code).toBe(2);
    expect(path.err).toContain('No extension "./no-such-folder" here');
  });
});
