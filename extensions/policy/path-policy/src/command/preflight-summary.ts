import type { AnyAgentTool, PreflightReport, Vote } from '@airlock/contract';

/**
 * What `policy explain` and `policy test` say about one kernel preflight: the effect, the rule and
 * the handler that decided it, the reason, and notes on why the kernel stopped early. Derived only
 * from the report, so it names whichever extension decided, path-policy or any other.
 */
export interface PreflightSummary {
  effect: PreflightReport['effect'];
  /** ok, or the outcome a denied call would end with (denied, invalid, not_found, aborted, error). */
  outcome: PreflightReport['outcome'];
  /** The deciding rule: a vote's rule id, `default`, `kernel:<reason>` or `failed:<handler>`. */
  rule: string;
  /** The handler that decided (a vote, a failing handler), when one did. */
  handler: string | undefined;
  reason: string;
  /** The hosts the votes named; the OS sandbox opens them for this call alone once it is allowed. */
  hosts: string[];
  notes: string[];
}

/**
 * @example
 * summarize(await host.kernel.preflight(call), host.kernel.registry.get(call.name)).handler // 'newcomer/guard'
 */
export function summarize(report: PreflightReport, tool: { readonly tool: AnyAgentTool } | undefined): PreflightSummary {
  const source = report.source;
  const deciding = decidingVote(report);
  const hosts = [...new Set(report.votes.flatMap((v) => v.hosts ?? []))];
  const base = { effect: report.effect, outcome: report.outcome, hosts, notes: notes(report, tool) };
  if (deciding !== undefined) {
    return { ...base, rule: deciding.rule ?? deciding.handler, handler: deciding.handler, reason: deciding.reason ?? report.reason ?? '' };
  }
  if (source?.kind === 'handler-failure') return { ...base, rule: `failed:${source.handler}`, handler: source.handler, reason: report.reason ?? '' };
  if (source?.kind === 'kernel') return { ...base, rule: `kernel:${source.reason}`, handler: undefined, reason: report.reason ?? '' };
  return { ...base, rule: 'default', handler: undefined, reason: report.reason ?? 'no handler voted: calls are allowed by default' };
}

/** The vote that decided: the one the decision names, or for an ask the first vote that asked. */
function decidingVote(report: PreflightReport): Vote | undefined {
  if (report.effect === 'ask') return report.asks[0];
  const source = report.source;
  if (source?.kind !== 'vote') return undefined;
  return report.votes.find((v) => v.handler === source.handler && v.effect === report.effect && v.rule === source.rule);
}

function notes(report: PreflightReport, tool: { readonly tool: AnyAgentTool } | undefined): string[] {
  const name = report.toolName;
  const out: string[] = [];
  if (report.outcome === 'not_found') out.push(`no tool "${name}" is registered: the kernel would answer not_found`);
  if (report.outcome === 'invalid') out.push(`the arguments do not fit ${name}'s schema: the kernel would answer invalid`);
  if (report.source?.kind === 'kernel' && report.source.reason === 'resources') out.push(`${name}'s resources() failed: the kernel would end the call as an error`);
  if (report.source?.kind === 'kernel' && report.source.reason === 'refused') out.push('the host refuses every call in this session (see `airlock extensions`)');
  // Which mapping judged the call (an MCP server's settings), or why none did.
  if (tool?.tool.judgedBy !== undefined) out.push(`${name} is judged by ${tool.tool.judgedBy}`);
  if (tool?.tool.effects === 'unknown' && report.args !== undefined) {
    out.push(`${name} says its effects are unknown: unless a rule names the tool, path-policy asks (default:unknown-effects)`);
  }
  // Said for every such tool: "(none)" alone reads as "touches nothing", which nobody checked.
  if (tool !== undefined && tool.tool.resources === undefined && report.args !== undefined) {
    out.push(`${name} declares no resources(): its calls are judged by tool name only (path rules such as fs.read(...) never match them)`);
  }
  if (report.effect === 'ask') out.push('explain asks nobody: a real call would go to the approvers (a prompt, or a remembered answer)');
  return out;
}
