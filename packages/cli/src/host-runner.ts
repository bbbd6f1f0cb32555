import { runnerOf, type ToolRunner } from '@airlock/agent';
import type { Host } from '@airlock/host';

/**
 * The agent loop's tool runner over an open host: the host's enabled set (settings, flags, bare
 * deny rules) is what the model is offered, and every batch goes through `host.batch`, so policy,
 * approval, redaction and audit apply as for `airlock batch`.
 */
export function hostRunner(host: Pick<Host, 'selection' | 'batch'>): ToolRunner {
  return runnerOf(host.selection, (calls, options) => host.batch(calls, options));
}
