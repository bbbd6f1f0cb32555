import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { makeTempDir } from '@airlock/kernel/testing';
import { defineExtension, type ToolCallEvent } from '../../src/index.js';

/**
 * A project folder of the test's own (removed at the end of the test) with a home and XDG folders
 * inside it, so no real ~/.config is read: `notes.txt` anyone may read, `secret.txt` the
 * `noSecrets` extension guards.
 */
export function project(): { dir: string; base: { cwd: string; env: Record<string, string>; homeDir: string } } {
  const root = makeTempDir('airlock-sdk-');
  const home = join(root, 'home');
  const dir = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'notes.txt'), 'hello notes\n');
  writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-VALUE\n');
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  return { dir, base: { cwd: dir, env, homeDir: home } };
}

/** Denies any call whose arguments mention "secret". */
export const noSecrets = defineExtension({
  name: 'no-secrets',
  setup(api) {
    api.on(
      'tool_call',
      (event: ToolCallEvent) => (JSON.stringify(event.args).includes('secret') ? { effect: 'deny', reason: 'secrets stay out of reach' } : undefined),
      { name: 'deny-secrets', phase: 'authorize' },
    );
  },
});

/** A tool whose Airlock name no provider accepts as it is (`demo:shout` → `demo_shout`). */
export const shouter = defineExtension({
  name: 'shouter',
  setup(api) {
    api.registerTool({
      name: 'demo:shout',
      label: 'Shout',
      description: 'Say a word in capitals.',
      parameters: Type.Object({ word: Type.String() }),
      resources: () => [],
      execute: async (_id, p) => ({ content: [{ type: 'text', text: String((p as { word: string }).word).toUpperCase() }] }),
    });
  },
});

export const guard = { extension: noSecrets, provides: { hooks: ['tool_call:authorize'] } };

export const textOf = (m: { content: readonly { type: string; text?: string }[] }): string => m.content.map((c) => c.text ?? '').join('');
