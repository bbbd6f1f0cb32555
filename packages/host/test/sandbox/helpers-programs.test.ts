import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapWorks, hasProgram, machine, machinesClosedAfterEach, SECRET } from './support.js';

const hasRg = hasProgram('rg', '--version');
const setup = machinesClosedAfterEach();
/** grep on rg: with path-policy's per-file rules, 'auto' would search in-process and start no program. */
const RG = { extensions: [{ name: '@airlock/tool-grep', options: { engine: 'rg' } }] };

async function grep(m: ReturnType<typeof machine>, host: Awaited<ReturnType<ReturnType<typeof machine>['open']>>, pattern: string) {
  const r = await host.execute({ id: 'g1', name: 'grep', arguments: { pattern } });
  return { outcome: r.outcome, text: r.content.map((c) => (c.type === 'text' ? c.text : '')).join('') };
}

describe.skipIf(!hasRg)('grep starts rg through the same sandbox', () => {
  it.skipIf(!bwrapWorks)('inside the sandbox rg finds what it finds outside, and never a secret', async () => {
    const m = setup(RG);
    writeFileSync(join(m.project, 'notes.md'), `needle here\n${SECRET.slice(0, 4)}\n`);
    const host = await m.open();
    expect(host.sandbox.service.status.active).toBe(true);
    const r = await grep(m, host, 'needle');
    expect(r.outcome).toBe('ok');
    expect(r.text).toContain('notes.md');
    const s = await grep(m, host, SECRET);
    expect(s.text).toContain('No matches found');
  });

  it('with sandbox.mode "required" and no bubblewrap, rg is not started', async () => {
    const m = setup({ ...RG, sandbox: { mode: 'required' } });
    writeFileSync(join(m.project, 'notes.md'), 'needle here\n');
    const host = await m.open({ sandboxProgram: '/nonexistent/bin/bwrap' });
    const r = await grep(m, host, 'needle');
    expect(r.outcome).toBe('error');
    expect(r.text).toContain('Blocked: sandbox.mode is "required"');
  });
});
