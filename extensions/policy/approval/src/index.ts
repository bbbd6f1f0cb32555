import Type, { type Static } from 'typebox';
import type { ApprovalInput, AskChoice, AskRequest, Extension, ExtensionAPI, ProtectedRuleName, ToolCallEvent, Vote } from '@airlock/contract';
import { checkAnswer, noAnswerText } from '@airlock/toolkit/util';
import { literalRules } from './literal-rule.js';
import { name, promptText } from './prompt.js';

/**
 * The approval prompt (approve phase): a person answers the calls that policy marks "ask".
 *
 * - Choices: allow once, allow for this session, always allow (saved as a literal rule in the
 *   project's local rules or the user's settings), deny, deny with a message for the model.
 * - Answers are choice ids (`once`, `session`, `project`, `user`, `deny`, `deny-with-reason`), never
 *   labels: the same ids whether a terminal, an RPC or MCP client or a program answers.
 * - No answer within `timeoutMs`, a decline, an answer that is not a choice, Ctrl-C or an abort:
 *   deny, saying which (the answer's `noAnswer`).
 * - Nobody to ask (no terminal, no dialog): deny, naming the rule that would allow it.
 * - An "ask" from an explicit rule is asked every time: a session or saved allow only answers
 *   asks that come from defaults (`default:…` rules). A saved allow never outweighs an explicit
 *   ask or deny — the policy's vote already makes sure of that for saved rules.
 * - Airlock's own files: a deny is never put to a person (this handler only sees asks), and an
 *   ask that protects them (`default:airlock-protected`) is asked every time, like an explicit rule.
 * - Prompts never overlap: the host shows one dialog at a time and batches approve in order.
 */
export const ApprovalOptions = Type.Object({
  timeoutMs: Type.Integer({ minimum: 1000, default: 300_000, description: 'A prompt left unanswered this long is a deny.' }),
  allowSave: Type.Boolean({ default: true, description: 'Offer "always allow" (saves a rule); false for shared machines.' }),
});
export type ApprovalOptions = Static<typeof ApprovalOptions>;

/**
 * The answers the prompt offers, by id. The ids are what this handler switches on and what a client
 * answers with (JSON-RPC `{"id": "session"}`, an MCP form's value, an SDK program's UI); the
 * labels are only what a person reads, and may change.
 */
export const LABELS = {
  once: 'Allow once',
  session: 'Allow for this session',
  project: 'Always allow in this project (saved to .airlock/settings.local.json)',
  user: 'Always allow, everywhere (saved to your user settings)',
  deny: 'Deny',
  'deny-with-reason': 'Deny, and tell the model why…',
} as const;
export type ApprovalChoice = keyof typeof LABELS;

/** The project answer's label in a folder that is not trusted: its local rules count only once it is. */
export const PROJECT_UNTRUSTED_LABEL = 'Always allow in this project (saved to .airlock/settings.local.json; counts once you trust this folder)';

const choice = (id: ApprovalChoice, label: string = LABELS[id]): AskChoice => ({ id, label });

/**
 * What the policy asked about, so the model and the log learn the danger (say, "git runs it on
 * commit") and not only that nobody was there to answer. At most three reasons.
 */
function whyAsked(asking: readonly Vote[]): string {
  const reasons = [...new Set(asking.map((vote) => `${vote.reason ?? 'approval required'} (${vote.rule ?? vote.handler})`))];
  if (reasons.length === 0) return '';
  const shown = reasons.slice(0, 3).join('; ');
  return `Asked because: ${shown}${reasons.length > 3 ? `; and ${reasons.length - 3} more` : ''}. `;
}

/**
 * The approve handler, separate from the extension so tests can drive it with any UI.
 *
 * @example api.on('tool_call', createApprover(api, options), { name: 'prompt', phase: 'approve' });
 */
export function createApprover(api: Pick<ExtensionAPI, 'ui' | 'rules' | 'log'>, options: ApprovalOptions) {
  // Literal rules a person allowed for this session.
  const sessionAllowed = new Set<string>();

  return async (event: ToolCallEvent): Promise<ApprovalInput | undefined> => {
    if (event.effect !== 'ask') return undefined;
    const asking = event.votes.filter((vote) => vote.effect === 'ask');
    const explicit = asking.filter((vote) => !isDefault(vote));
    const { rules, broad } = literalRules(event.toolName, event.resources);
    const label = rules.join(', ');

    if (explicit.length === 0 && rules.every((rule) => sessionAllowed.has(rule))) {
      return { effect: 'allow', by: 'user', scope: 'session', reason: `allowed for this session (${label})` };
    }
    if (!api.ui.interactive) {
      const named = explicit.map(asker).join(', ');
      return {
        effect: 'deny',
        by: 'approval',
        reason:
          whyAsked(asking) +
          (explicit.length > 0
            ? `This call needs a person's approval (${named} asks every time), and nobody can be asked here: no terminal and no dialog to show it in. Run it interactively${explicit.some((vote) => vote.rule === PROTECTED_RULE) ? " (no rule can allow what may change Airlock's own files)" : explicit.every((vote) => vote.rule === undefined) ? ', or change that extension\'s configuration' : ', or change that rule'}.`
            : `This call needs a person's approval, and nobody can be asked here: no terminal and no dialog to show it in. To allow it without asking, add ${JSON.stringify(label)} to permissions.allow in ${api.rules?.files.user ?? 'your user settings'} (or in the project's .airlock/settings.local.json, which counts once the folder is trusted: airlock trust), or run interactively.`),
      };
    }

    const choices = [choice('once')];
    // An explicit ask rule means "ask every time": offering to remember the answer would undo it.
    if (explicit.length === 0) {
      choices.push(choice('session'));
      if (options.allowSave && api.rules !== undefined) choices.push(choice('project', api.rules.localCounts ? LABELS.project : PROJECT_UNTRUSTED_LABEL), choice('user'));
    }
    choices.push(choice('deny'), choice('deny-with-reason'));

    // Why only "once" and the denies: a remembered answer would not lift these asks, so the
    // dialog says who asks every time (a rule, or an extension's own handler, which no rule outvotes).
    const scopeNote = explicit.length > 0 ? `\n(${explicit.map(asker).join(', ')} asks about this every time.)` : broad ? `\n(Remembering this allows every ${name(event.toolName)} call.)` : '';
    const title = `${promptText({ tool: event.toolName, args: event.args, proposedArgs: event.proposedArgs, provenance: event.provenance, asking, resources: event.resources })}${scopeNote}`;
    const dialog = { timeoutMs: options.timeoutMs, ...(event.signal ? { signal: event.signal } : {}) };
    const request: AskRequest = { kind: 'choice', title, choices, toolCallId: event.toolCallId };
    // Checked here too: a program's own UI need not check, and an answer that was not offered (a
    // "session" to an explicit rule's ask) must never be honoured.
    const answer = checkAnswer(request, await api.ui.ask(request, dialog));
    const picked = 'id' in answer ? (answer.id as ApprovalChoice) : undefined;

    switch (picked) {
      case 'once':
        return { effect: 'allow', by: 'user', scope: 'once' };
      case 'session':
        for (const rule of rules) sessionAllowed.add(rule);
        return { effect: 'allow', by: 'user', scope: 'session', reason: `allowed for this session (${label})` };
      case 'project':
      case 'user': {
        const where = picked === 'user' ? 'user' : 'local';
        for (const rule of rules) sessionAllowed.add(rule);
        try {
          const files = new Set<string>();
          for (const rule of rules) files.add((await api.rules!.add('allow', rule, where)).file);
          return { effect: 'allow', by: 'user', scope: 'persisted', reason: `always allowed: ${label} saved to ${[...files].join(', ')}` };
        } catch (error) {
          // The person said yes; a file we cannot write must not turn that into a no. It holds for this session.
          api.log.warn(`Could not save ${label}: ${error instanceof Error ? error.message : String(error)}`);
          return { effect: 'allow', by: 'user', scope: 'session', reason: `allowed for this session; saving the rule failed` };
        }
      }
      case 'deny-with-reason': {
        const why = await api.ui.ask({ kind: 'text', title: 'Tell the model why (it reads this):', toolCallId: event.toolCallId }, dialog);
        const text = 'text' in why ? why.text.trim() : '';
        return { effect: 'deny', by: 'user', scope: 'once', reason: text ? `Denied by the user: ${text}` : 'Denied by the user.' };
      }
      case 'deny':
        return { effect: 'deny', by: 'user', scope: 'once', reason: 'Denied by the user.' };
      default: {
        // No answer: the answer says why (declined, not a choice, timed out, cancelled …).
        const why = 'noAnswer' in answer ? answer.noAnswer : undefined;
        return {
          effect: 'deny',
          by: why?.kind === 'declined' || why?.kind === 'cancelled' || why?.kind === 'invalid' ? 'user' : 'approval',
          scope: 'once',
          reason: event.signal?.aborted || why?.kind === 'aborted' ? 'Denied: the run was aborted while waiting for approval.' : `Denied: ${noAnswerText(why)}.`,
        };
      }
    }
  };
}

/** No allow rule lifts the protection of Airlock's own files, so its asks count as explicit. */
const PROTECTED_RULE: ProtectedRuleName = 'default:airlock-protected';

/** Who asks, in words: `the rule bash(git push *)`, or `the extension handler acme/review` (a vote without a rule). */
function asker(vote: Vote): string {
  return vote.rule !== undefined ? `the rule ${vote.rule}` : `the extension handler ${vote.handler}`;
}

function isDefault(vote: Vote): boolean {
  return vote.rule !== undefined && vote.rule.startsWith('default:') && vote.rule !== PROTECTED_RULE;
}

const extension: Extension<typeof ApprovalOptions> = {
  name: 'approval',
  options: ApprovalOptions,
  setup(api, options) {
    // No time limit from the kernel (a person may take their time); the dialog has its own.
    api.on('tool_call', createApprover(api, options), { name: 'prompt', phase: 'approve' });
  },
};

export default extension;
