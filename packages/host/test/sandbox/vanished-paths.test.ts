import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../src/sandbox/bwrap-args.js';
import { bwrapWorks } from './support.js';

/**
 * A path the plan keeps read-only may be gone by the time bubblewrap starts: the audit log's lock
 * file is let go 100 ms after the last record, a build replaces a file. That must not fail the
 * command (it did: "bwrap: Can't find source path …lock"), and what is still there stays read-only.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(bwrapWorks)('read-only paths removed between the plan and the start', () => {
  it('the command runs; the paths still there stay read-only, and the gone one is not made', () => {
    const work = mkdtempSync(join(tmpdir(), 'vanished-'));
    dirs.push(work);
    const kept = join(work, 'kept.txt');
    writeFileSync(kept, 'kept\n');
    const gone = join(work, 'audit.jsonl.lock');
    const deny = join(work, '.deny');
    writeFileSync(deny, '');
    const plan = { writable: [work], readOnly: [gone, kept], hiddenDirs: [], hiddenFiles: [], guarded: [] };
    const args = bwrapArgs(plan, { cwd: work, denyFile: deny });
    const out = execFileSync('bwrap', [...args, 'bash', '-c', 'echo ran; echo x >> kept.txt 2>/dev/null || echo kept-read-only'], { encoding: 'utf8' });
    expect(out).toBe('ran\nkept-read-only\n');
    expect(existsSync(gone)).toBe(false);
  });
});
