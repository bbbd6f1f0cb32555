import type { AgentToolResult } from '@airlock/contract';
import type { HookBus } from '../bus/hooks.js';
import type { UpdateState } from '../bus/handler-policy.js';
import { cloneValue, deepFreeze, MAX_VALUE_DEPTH, nestsDeeperThan } from '@airlock/toolkit/util';
import type { CallState } from '../state/call-state.js';

/**
 * Streams a tool's partial results to observers: throttled (the first at once, then at most one
 * per interval, the latest winning), redacted when redactors are loaded, and never after the call
 * settled. Observers are called synchronously and never awaited, so a slow UI cannot slow the tool.
 */
export interface UpdateForwarder {
  push(partial: AgentToolResult): void;
  /**
   * The tool is done: send the partial still waiting for its timer (a live view would otherwise
   * miss whatever the tool reported last, all of it when the tool ended within the first
   * interval), then ignore later pushes. A promise only while redactors still work on partials:
   * the call's end waits for it, so no update comes after the end.
   */
  close(): Promise<void> | undefined;
}

export function createUpdateForwarder(state: CallState, bus: HookBus, throttleMs: number): UpdateForwarder {
  // Most calls never stream: build the forwarder on the first update, not for every call.
  let inner: UpdateForwarder | undefined;
  let closed = false;
  return {
    push(partial) {
      if (closed) return;
      inner ??= forwarder(state, bus, throttleMs);
      inner.push(partial);
    },
    close() {
      closed = true;
      return inner?.close();
    },
  };
}

function forwarder(state: CallState, bus: HookBus, throttleMs: number): UpdateForwarder {
  let closed = false;
  let lastSent = -Infinity;
  let pending: AgentToolResult | undefined;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let redacting = false;

  const send = (partial: AgentToolResult): void => {
    lastSent = performance.now();
    // Checked here, not in push: a tool may change a pending partial until its timer fires. One too
    // deep to clone, redact and serialise is dropped (the final result is checked on its own).
    if (nestsDeeperThan(partial, MAX_VALUE_DEPTH + 1)) return;
    const snapshot = { content: deepFreeze(cloneValue(partial.content)), details: deepFreeze(cloneValue(partial.details)) };
    if (!bus.hasRedactors()) {
      emit(snapshot);
      return;
    }
    // Redaction may be async; keep the partials in order and re-check `closed` when each is ready.
    const update: UpdateState = { call: state, partial: snapshot, withheld: false };
    redacting = true;
    chain = chain
      .then(async () => {
        await bus.toolUpdate.promise(update);
        if (!update.withheld) emit(update.partial);
      })
      // A partial that cannot be redacted is not forwarded; the final result still is checked.
      .catch(() => {});
  };

  const emit = (partial: { content: AgentToolResult['content']; details: unknown }): void => {
    if (closed) return;
    state.events.emit({
      type: 'tool_execution_update',
      toolCallId: state.call.id,
      toolName: state.tool?.tool.name ?? state.call.name,
      partial: partial as AgentToolResult,
    });
  };

  const flush = (): void => {
    timer = undefined;
    if (closed || pending === undefined) return;
    const next = pending;
    pending = undefined;
    send(next);
  };

  return {
    push(partial) {
      if (closed || partial === null || typeof partial !== 'object' || !Array.isArray(partial.content)) return;
      const wait = lastSent + throttleMs - performance.now();
      if (wait <= 0 && timer === undefined) {
        send(partial);
        return;
      }
      pending = partial;
      timer ??= setTimeout(flush, Math.max(0, wait));
    },
    close() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const last = pending;
      pending = undefined;
      if (last !== undefined) send(last);
      if (!redacting) {
        closed = true;
        return undefined;
      }
      return chain.then(() => void (closed = true));
    },
  };
}
