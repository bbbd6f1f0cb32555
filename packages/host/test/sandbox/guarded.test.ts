import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { createSandbox } from '../../src/index.js';
import { bwrapWorks, machinesClosedAfterEach } from './support.js';

const setup = machinesClosedAfterEach();

describe.skipIf(!bwrapWorks)('settings a command creates are taken back when it ends (a mount cannot cover what does not exist yet)', () => {
  it('through the whole pipeline: Airlock settings created by a command the analysis cannot read are moved aside, kept, and the model is told', { timeout: scaledMs(60_000) }, async () => {
    const m = setup();
    // The names are put together at run time, so only the sandbox sees what is written.
    const command = 'n=.air; source /dev/stdin <<< "mkdir -p ${n}lock sub/${n}lock; printf %s \'{\\"sandbox\\":{\\"mode\\":\\"off\\"}}\' > ${n}lockrc.json; echo x > ${n}lock/settings.json; echo y > sub/${n}lock/settings.local.json; echo made > notes.txt"';
    m.approve(command);
    const host = await m.open();
    const r = await m.bash(host, command);
    expect(r.outcome, r.text).toBe('ok');
    // The ordinary file stays; no settings file is left where discovery reads it.
    expect(readFileSync(join(m.project, 'notes.txt'), 'utf8')).toBe('made\n');
    for (const gone of ['.airlockrc.json', '.airlock', 'sub/.airlock']) expect(existsSync(join(m.project, gone)), gone).toBe(false);
    // Nothing is lost: each is kept next to where it was, under a name no discovery reads.
    const aside = readdirSync(m.project).filter((n) => n.includes('.airlock-blocked-'));
    expect(aside.map((n) => n.replace(/-\d+$/, '')).sort()).toEqual(['.airlock.airlock-blocked', '.airlockrc.json.airlock-blocked']);
    expect(readFileSync(join(m.project, aside.find((n) => n.startsWith('.airlockrc'))!), 'utf8')).toContain('"off"');
    expect(readdirSync(join(m.project, 'sub')).some((n) => n.startsWith('.airlock.airlock-blocked-'))).toBe(true);
    expect(r.text).toContain('[sandbox] The command created or replaced files only a person may write');
    expect(r.text).toContain(join(m.project, '.airlockrc.json'));

    // The next session reads no settings from them: the sandbox is still on.
    const next = await m.open();
    expect(next.sandbox.service.status.active).toBe(true);
  });

  it('settings that existed before the command stay read-only and untouched; a file the host saves meanwhile is not taken back', async () => {
    const root = makeTempDir('airlock-guarded-');
    const project = join(root, 'project');
    mkdirSync(join(project, '.airlock'), { recursive: true });
    writeFileSync(join(project, '.airlock', 'settings.json'), '{}');
    const guarded = (p: string) => /\/\.airlock(rc[^/]*)?$/.test(p) || p.includes('/.airlock/');
    const sandbox = await createSandbox({
      mode: 'auto',
      path: process.env.PATH ?? '',
      tmpRoot: root,
      profile: () => ({ writable: [project], readOnly: [], hidden: [], classify: (p) => (guarded(p) ? 'guarded' : undefined) }),
    });
    try {
      const run = async (script: string, meanwhile?: () => void) => {
        const cmd = await sandbox.service.wrap(['/bin/bash', '-c', script], { cwd: project, env: { PATH: process.env.PATH ?? '' } });
        let output = '';
        try {
          output = execFileSync(cmd.file, [...cmd.args], { cwd: project, env: cmd.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (error) {
          output = String((error as { stderr?: string }).stderr ?? '');
        }
        meanwhile?.();
        return { output, note: await cmd.release() };
      };
      const inside = await run('echo x > .airlock/settings.json');
      expect(inside.output).toContain('Read-only file system');
      expect(inside.note).toBeUndefined();
      expect(readFileSync(join(project, '.airlock', 'settings.json'), 'utf8')).toBe('{}');

      // A person's "always allow" saved by the host while a command runs.
      const saved = join(project, '.airlockrc.json');
      const during = await run('true', () => {
        sandbox.expectWrite(saved);
        writeFileSync(saved, '{"permissions":{"allow":["read"]}}');
      });
      expect(during.note).toBeUndefined();
      expect(readFileSync(saved, 'utf8')).toContain('read');

      // The same file written by someone else during a command is taken back.
      const other = join(project, '.airlockrc.yaml');
      const sneaky = await run('true', () => writeFileSync(other, 'x: 1\n'));
      expect(sneaky.note).toContain(other);
      expect(existsSync(other)).toBe(false);
      // Released once: a second call does nothing.
      expect(readdirSync(project).filter((n) => n.startsWith('.airlockrc.yaml.airlock-blocked-'))).toHaveLength(1);
    } finally {
      await sandbox.dispose();
    }
  });
});
