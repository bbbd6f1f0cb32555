import { errorMessage } from '@airlock/toolkit/util';
import { runToolCallHook, type ToolCallHookRuntime } from './4-tool-call-hook.js';
import { type CallState, stop } from '../state/call-state.js';
import { internalError } from '../wording.js';

/**
 * Judge an allowed call again, just before it runs, because `after` — an earlier call of the
 * same batch that has finished by now — may have changed the filesystem since the first
 * judgement (a symlink planted by bash turns an allowed read into a read of a secret).
 *
 * The arguments stay as they were approved (transform handlers do not run again); `resources()`,
 * the authorize votes and, when the votes ask, the approvers run again. A person's earlier
 * approval is kept when the new votes and resources equal the first ones, so nobody is asked
 * twice for the same thing. When the call is stopped, `state.decision` says why.
 */
export async function recheck(state: CallState, kernel: ToolCallHookRuntime, after: CallState): Promise<void> {
  state.recheck = Object.freeze({
    after: Object.freeze({ toolCallId: after.call.id, toolName: after.tool?.tool.name ?? after.call.name }),
    resources: state.resources,
    votes: state.votes,
    approval: state.approval,
  });
  state.resources = [];
  state.judged = [];
  state.mayChangeFiles = true;
  state.votes = [];
  state.effect = undefined;
  state.approval = undefined;
  state.decision = undefined;
  state.view = undefined;
  try {
    await runToolCallHook(state, kernel);
  } catch (error) {
    stop(state, 'error', internalError('re-checking', state.call.name, errorMessage(error)));
  }
}
