import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { sandbox } from './harness.js';
import { ENTER, inPty } from './pty.js';

/**
 * `airlock extensions add` on a real terminal: what the package declares is on screen before the
 * question, a bare Enter says no and changes nothing, and "y" adds it.
 */
describe('extensions add asks on a terminal', { timeout: scaledMs(60_000) }, () => {
  const ADD = ['extensions', 'add', '@airlock/command-hooks'];
  const offline = { npm_config_registry: 'http://127.0.0.1:9/' };

  it('shows what the package declares; Enter alone is no, and nothing changes', async () => {
    const s = sandbox();
    const { exitCode, transcript } = await inPty(s, ADD, [
      { expect: '@airlock/command-hooks 1\\.0\\.0 declares:' },
      { expect: 'policy phases it joins: tool_call:authorize' },
      { expect: 'processes, network: +processes' },
      { expect: 'Add @airlock/command-hooks to the project settings\\?' },
      { send: ENTER },
      { expect: 'Nothing was changed' },
    ], offline);
    expect(exitCode, transcript).toBe(2);
    expect(existsSync(join(s.project, '.airlockrc.json'))).toBe(false);
    expect(existsSync(join(s.project, 'airlock-lock.json'))).toBe(false);
  });

  it('"y" adds it to the settings and pins it', async () => {
    const s = sandbox();
    const { exitCode, transcript } = await inPty(s, ADD, [
      { expect: 'Add @airlock/command-hooks to the project settings\\?' },
      { send: 'y' },
      { send: ENTER },
      { expect: 'Added @airlock/command-hooks 1\\.0\\.0' },
    ], offline);
    expect(exitCode, transcript).toBe(0);
    expect(JSON.parse(readFileSync(join(s.project, '.airlockrc.json'), 'utf8'))).toEqual({ extensions: ['@airlock/command-hooks'] });
  });
});
