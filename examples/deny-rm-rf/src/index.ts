import type { Extension, ToolCallEvent, VoteInput } from '@airlock/contract';
import { rmVerdict } from './recursive-rm.js';

const RULE = 'deny-rm-rf';

/**
 * One authorize handler: for every command a call runs (any tool that declares `exec` resources,
 * bash among them), deny a recursive rm and ask when the shell analysis cannot tell what runs.
 * It never allows: other policies still judge everything else.
 */
export async function judge(event: ToolCallEvent): Promise<VoteInput | undefined> {
  for (const resource of event.resources) {
    if (resource.kind !== 'exec') continue;
    const analysis = await event.analyzeCommand?.(resource.command);
    if (analysis === undefined || !analysis.ok) {
      const why = analysis === undefined ? 'the tool gives no shell analysis' : analysis.reason;
      return { effect: 'ask', reason: `cannot tell whether this removes a folder tree (${why})`, rule: RULE };
    }
    for (const command of analysis.commands) {
      const verdict = rmVerdict(command);
      if (verdict === 'recursive') {
        return { effect: 'deny', reason: `recursive rm is not allowed here: ${command.text}. Remove single files by name instead.`, rule: RULE };
      }
      if (verdict === 'unknown') {
        return { effect: 'ask', reason: `rm with options only known at run time may be recursive: ${command.text}`, rule: RULE };
      }
    }
  }
  return undefined;
}

const extension = {
  name: 'deny-rm-rf',
  setup(api) {
    api.on('tool_call', judge, { name: 'judge', phase: 'authorize' });
  },
} satisfies Extension;

export default extension;
