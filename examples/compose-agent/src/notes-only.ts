import { realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { defineExtension, type ToolCallEvent } from '@airlock/sdk';

/**
 * A policy extension written in the program itself: this agent may write only under `notes/`.
 * It judges the resources a call declares (resolved paths), so it covers write, edit and any
 * other tool that says it writes a file, whatever the tool is called.
 */
export const notesOnly = defineExtension({
  name: 'notes-only',
  setup(api) {
    const notes = join(realpathSync(api.cwd), 'notes') + sep;
    api.on(
      'tool_call',
      (event: ToolCallEvent) => {
        const outside = event.resources.filter((r) => r.kind === 'fs.write' && !r.path.startsWith(notes));
        if (outside.length === 0) return undefined;
        return { effect: 'deny', reason: `this agent writes only under notes/ (asked to write ${outside.map((r) => (r as { path: string }).path).join(', ')})` };
      },
      { name: 'writes', phase: 'authorize' },
    );
  },
});

/** With its manifest: declaring the authorize hook makes a failure to load it block every tool. */
export const notesOnlyModule = { extension: notesOnly, provides: { hooks: ['tool_call:authorize'] } };
