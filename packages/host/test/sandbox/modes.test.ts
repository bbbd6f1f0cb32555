import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bwrapWorks, machine, SECRET } from './support.js';

const machines: ReturnType<typeof machine>[] = [];
afterEach(async () => {
  for (const m of machines.splice(0)) await m.close();
});
function setup(settings?: Record<string, unknown>) {
  const m = machine(settings);
  machines.push(m);
  return m;
}

/** Stands for a machine without bubblewrap. */
const MISSING = '/nonexistent/bin/bwrap';

describe('sandbox.mode when bubblewrap is missing', () => {
  it('auto: one warning naming what is missing and the package; bash runs without it and asks for what the analysis cannot follow', async () => {
    const m = setup();
    const host = await m.open({ sandboxProgram: MISSING });
    const warnings = host.diagnostics.filter((d) => d.code === 'AIRLOCK_SANDBOX_UNAVAILABLE');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain('bubblewrap');
    expect(warnings[0]!.fix).toContain('apt-get install bubblewrap');
    expect(host.sandbox.service.status).toMatchObject({ mode: 'auto', active: false });

    const plain = await m.bash(host, 'echo hi > made.txt && cat made.txt');
    expect(plain.outcome).toBe('ok');
    expect(plain.details?.sandboxed).toBeUndefined();
    expect(existsSync(join(m.project, 'made.txt'))).toBe(true);

    // Allowed by bash(*), but a string run as code: with no sandbox under it, a person is asked
    // (and in this non-interactive run nobody can answer, so it does not run).
    for (const command of ['source /dev/stdin <<< "cat .env"', 'trap "cat .env" EXIT; true', 'x=\'$(cat .env)\'; echo "${x@P}"', 'hash -p /bin/cat x; x .env', 'printf "cat .env\\n" > s.sh; BASH_ENV=s.sh bash -c true']) {
      const r = await m.bash(host, command);
      expect(r.outcome, command).toBe('denied');
      expect(r.text, command).not.toContain(SECRET);
    }
  });

  it('required: bash is blocked with the same message, and nothing runs', async () => {
    const m = setup({ sandbox: { mode: 'required' } });
    const host = await m.open({ sandboxProgram: MISSING });
    const warning = host.diagnostics.find((d) => d.code === 'AIRLOCK_SANDBOX_UNAVAILABLE');
    expect(warning?.message).toContain('"required"');
    const r = await m.bash(host, 'echo hi > made.txt');
    expect(r.outcome).toBe('error');
    expect(r.text).toContain('Blocked: sandbox.mode is "required"');
    expect(r.text).toContain('apt-get install bubblewrap');
    expect(existsSync(join(m.project, 'made.txt'))).toBe(false);
  });

  it('off: no probe, no warning, no extra asks from the policy', async () => {
    const m = setup({ sandbox: { mode: 'off' } });
    const host = await m.open({ sandboxProgram: MISSING });
    expect(host.diagnostics.some((d) => d.code === 'AIRLOCK_SANDBOX_UNAVAILABLE')).toBe(false);
    expect(host.sandbox.describe(m.project)).toContain('"off"');
  });
});

describe.skipIf(!bwrapWorks)('who may set sandbox.mode', () => {
  it('an untrusted project cannot turn the sandbox off; a trusted one can', async () => {
    const m = setup();
    writeFileSync(join(m.project, '.airlockrc.json'), JSON.stringify({ sandbox: { mode: 'off' } }));
    const untrusted = await m.open({ trust: false });
    expect(untrusted.sandbox.service.status).toMatchObject({ mode: 'auto', active: true });
    expect(untrusted.diagnostics.find((d) => d.code === 'AIRLOCK_SETTINGS_UNTRUSTED_VALUES')?.message).toContain('sandbox.mode');
    const r = await m.bash(untrusted, 'source /dev/stdin <<< "cat .env"');
    expect(r.text).not.toContain(SECRET);

    const trusted = await m.open({ trust: true });
    expect(trusted.sandbox.service.status).toMatchObject({ mode: 'off', active: false });
  });
});
