import { resolve } from 'node:path';
import { Compile } from 'typebox/compile';
import Type from 'typebox';
import type { Resource, ResourceKind } from '@airlock/contract';
import type { HookBus } from '../bus/hooks.js';
import { combineVotes } from '../bus/votes.js';
import { deepFreeze, jsonEqual, MAX_VALUE_DEPTH, nestsDeeperThan } from '@airlock/toolkit/util';
import { errorMessage } from '@airlock/toolkit/util';
import { validateArguments } from './3-validate-arguments.js';
import { resourcesMayChangeFiles } from './may-change-files.js';
import { deniedByApprover, deniedByPolicy, invalidAfterTransform, noApprover, resourcesMalformed, resourcesThrew, stoppedOnRecheck } from '../wording.js';
import type { CallState } from '../state/call-state.js';
import { isStopped, stop } from '../state/call-state.js';
import { judgedFileAt } from '@airlock/toolkit/util';

/** What stage 4 needs from the kernel. */
export interface ToolCallHookRuntime {
  readonly bus: HookBus;
}

/**
 * Stage 4: the tool_call hook, phase by phase, with the kernel's own checks between them. When it
 * returns, `state.decision` says allow or deny (or, in a dry run, `state.effect` says ask).
 * A phase without handlers costs no await (`runPhase` returns undefined).
 */
export async function runToolCallHook(state: CallState, kernel: ToolCallHookRuntime): Promise<void> {
  const { bus } = kernel;
  let pending = bus.runPhase('tool_call:transform', state);
  if (pending !== undefined) await pending;
  revalidateAndFindResources(state);
  pending = bus.runPhase('tool_call:authorize', state);
  if (pending !== undefined) await pending;
  combine(state);
  pending = bus.runPhase('tool_call:approve', state);
  if (pending !== undefined) await pending;
  settle(state);
  pending = bus.runPhase('tool_call:observe', state);
  if (pending !== undefined) await pending;
  state.events.emit({
    type: 'tool_decision',
    toolCallId: state.call.id,
    toolName: state.tool?.tool.name ?? state.call.name,
    decision: state.decision!,
    provenance: state.provenance,
    resources: state.resources,
  });
}

/** A file resource's path as the model wrote it: optional, never empty (an empty one names nothing to judge). */
const Written = Type.Optional(Type.String({ minLength: 1 }));

const ResourceList = Compile(
  Type.Array(
    Type.Union([
      Type.Object({ kind: Type.Literal('fs.read'), path: Type.String(), written: Written }),
      Type.Object({ kind: Type.Literal('fs.write'), path: Type.String(), written: Written }),
      Type.Object({
        kind: Type.Literal('exec'),
        command: Type.String(),
        argv: Type.Optional(Type.Array(Type.String())),
        cwd: Type.Optional(Type.String()),
        touches: Type.Optional(Type.Object({ reads: Type.Array(Type.String()), writes: Type.Array(Type.String()) })),
      }),
      Type.Object({ kind: Type.Literal('net'), host: Type.String(), port: Type.Optional(Type.Number()), url: Type.Optional(Type.String()) }),
    ]),
  ),
);

/** After the transforms: re-validate changed arguments, then ask the tool what the call touches. */
function revalidateAndFindResources(state: CallState): void {
  if (isStopped(state)) return;
  const tool = state.tool!.tool;
  // A transform cannot smuggle an invalid shape past the schema (Pi runs whatever a hook left).
  // A re-check keeps the arguments of the first judgement, so there is nothing to re-validate.
  if (state.provenance.length > 0 && state.recheck === undefined) {
    const checked = validateArguments(tool.parameters, state.args);
    if (!checked.ok) {
      const handlers = [...new Set(state.provenance.map((p) => p.handler))];
      stop(state, 'invalid', invalidAfterTransform(state.call.name, handlers, checked.problems, state.args));
      return;
    }
    // Coercion after a transform is a change too, and provenance says who made it.
    if (!jsonEqual(checked.value, state.args)) {
      state.provenance.push(Object.freeze({ handler: 'kernel/revalidate', before: state.args!, after: checked.value }));
      state.args = checked.value;
    }
  }
  if (tool.resources === undefined) return;
  let resources: Resource[];
  try {
    resources = tool.resources(state.args as never, state.ctx!);
  } catch (error) {
    stop(state, 'error', resourcesThrew(errorMessage(error)), {
      kind: 'kernel',
      reason: 'resources',
    });
    return;
  }
  // Extra fields are allowed, so the depth is checked too: the resources are frozen and go into events.
  if (!ResourceList.Check(resources) || nestsDeeperThan(resources, MAX_VALUE_DEPTH)) {
    stop(state, 'error', resourcesMalformed(state.call.name, resourceProblem(resources)), {
      kind: 'kernel',
      reason: 'resources',
    });
    return;
  }
  state.resources = deepFreeze(resources.map((r) => ({ ...r })));
  // What each named file is now, as the policy is about to judge it: execute opens exactly that.
  const cwd = state.ctx!.cwd;
  state.judged = Object.freeze(state.resources.flatMap((r) => (r.kind === 'fs.read' || r.kind === 'fs.write' ? [Object.freeze(judgedFileAt(resolve(cwd, r.path)))] : [])));
  state.mayChangeFiles = tool.effects === 'unknown' || resourcesMayChangeFiles(state.resources);
}

/**
 * What is wrong with a resource list that failed the check, in the tool author's terms: which
 * entry, and what its kind needs. Only runs on failure, so it may take its time.
 */
function resourceProblem(resources: unknown): string {
  if (!Array.isArray(resources)) return `resources() must return an array, got ${resources === null ? 'null' : typeof resources}`;
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i] as Record<string, unknown> | null;
    const at = `resources[${i}]`;
    if (r === null || typeof r !== 'object') return `${at} is ${r === null ? 'null' : typeof r}, not an object`;
    const need = (RESOURCE_SHAPES as Record<string, string | undefined>)[r.kind as string];
    if (need === undefined) return `${at} has kind ${JSON.stringify(r.kind) ?? 'undefined'}; the kinds are ${Object.keys(RESOURCE_SHAPES).join(', ')}`;
    if (!ResourceList.Check([r])) return `${at} (${String(r.kind)}) must be ${need}`;
  }
  return `they nest deeper than ${MAX_VALUE_DEPTH} levels`;
}

const RESOURCE_SHAPES: Record<ResourceKind, string> = {
  'fs.read': '{kind, path: string, written?: non-empty string (the path as the model wrote it)}',
  'fs.write': '{kind, path: string, written?: non-empty string (the path as the model wrote it)}',
  exec: '{kind, command: string, argv?: string[], cwd?: string, touches?: {reads: string[], writes: string[]}}',
  net: '{kind, host: string, port?: number, url?: string}',
};

/** After the authorize votes: deny > ask > allow. A deny stops the call here. */
function combine(state: CallState): void {
  if (isStopped(state)) return;
  const { effect, deciding } = combineVotes(state.votes);
  state.effect = effect;
  if (effect === 'ask' && mayKeepApproval(state)) state.approval = state.recheck!.approval;
  if (effect === 'deny') {
    const first = deciding[0]!;
    stop(state, 'denied', onRecheck(state, deniedByPolicy(state.call.name, deciding)), {
      kind: 'vote',
      handler: first.handler,
      ...(first.rule === undefined ? {} : { rule: first.rule }),
    });
  }
}

/** After the approvers: settle the decision (an unanswered ask is a deny). */
function settle(state: CallState): void {
  if (isStopped(state)) return;
  if (state.effect === 'ask') {
    // A dry run ends at the combined vote: nobody was asked, so there is nothing to settle.
    if (state.dryRun) return;
    const approval = state.approval;
    if (approval === undefined) {
      stop(state, 'denied', onRecheck(state, noApprover(state.call.name, state.votes.filter((v) => v.effect === 'ask'))), { kind: 'no-approver' });
      return;
    }
    const source = {
      kind: 'approval' as const,
      handler: approval.handler,
      ...(approval.by === undefined ? {} : { by: approval.by }),
      ...(approval.scope === undefined ? {} : { scope: approval.scope }),
    };
    if (approval.effect === 'deny') {
      stop(state, 'denied', onRecheck(state, deniedByApprover(approval.by, approval.reason)), source);
      return;
    }
    state.decision = { effect: 'allow', outcome: 'ok', source, votes: state.votes, ...(approval.reason ? { reason: approval.reason } : {}) };
    return;
  }
  const allow = state.votes.find((v) => v.effect === 'allow');
  state.decision = {
    effect: 'allow',
    outcome: 'ok',
    source: allow === undefined ? { kind: 'default' } : { kind: 'vote', handler: allow.handler, ...(allow.rule ? { rule: allow.rule } : {}) },
    votes: state.votes,
    ...(allow?.reason ? { reason: allow.reason } : {}),
  };
}

/**
 * On a re-check, an approval given at the first judgement still stands when the call would be
 * asked about exactly the same thing: same votes (effect, handler, rule, reason, hosts) and the same
 * resources. Anything else — a new ask, another reason, a path that now resolves elsewhere —
 * goes to the approvers again.
 */
function mayKeepApproval(state: CallState): boolean {
  const first = state.recheck;
  if (first === undefined || first.approval === undefined || first.approval.effect !== 'allow') return false;
  if (first.votes.length !== state.votes.length) return false;
  for (let i = 0; i < first.votes.length; i++) {
    const a = first.votes[i]!;
    const b = state.votes[i]!;
    if (a.effect !== b.effect || a.handler !== b.handler || a.rule !== b.rule || a.reason !== b.reason || !jsonEqual(a.hosts ?? [], b.hosts ?? [])) return false;
  }
  return jsonEqual(first.resources, state.resources);
}

function onRecheck(state: CallState, text: string): string {
  return state.recheck === undefined ? text : stoppedOnRecheck(state.recheck.after, text);
}
