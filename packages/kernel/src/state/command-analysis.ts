import type { ShellAnalysis } from '@airlock/contract';
import { deepFreeze } from '@airlock/toolkit/util';
import { errorMessage } from '@airlock/toolkit/util';

/**
 * One call's `event.analyzeCommand`: the tool's analyzer, called at most once per command text,
 * the answer frozen and shared by every handler of the call (they run one after another, so a
 * handler cannot change what the next one sees). An analyzer that throws or answers something
 * that is not an analysis gives `ok: false` with the reason: a policy reads that as "unknown",
 * never as "nothing runs".
 *
 * @example const analyze = sharedAnalysis('bash', tool.analyzeCommand); await analyze('ls') === await analyze('ls') // true
 */
export function sharedAnalysis(tool: string, analyzer: (command: string) => Promise<ShellAnalysis>): (command: string) => Promise<ShellAnalysis> {
  const answers = new Map<string, Promise<ShellAnalysis>>();
  return (command) => {
    let answer = answers.get(command);
    if (answer === undefined) {
      answer = run(tool, analyzer, command);
      answers.set(command, answer);
    }
    return answer;
  };
}

async function run(tool: string, analyzer: (command: string) => Promise<ShellAnalysis>, command: string): Promise<ShellAnalysis> {
  if (typeof command !== 'string') return unsure(`analyzeCommand needs the command as a string, got ${typeof command}`);
  let value: unknown;
  try {
    value = await analyzer(command);
  } catch (error) {
    return unsure(`the command analysis of the tool "${tool}" failed: ${errorMessage(error)}`);
  }
  const v = value as { ok?: unknown; commands?: unknown; reason?: unknown } | null;
  if (v === null || typeof v !== 'object' || (v.ok === true ? !Array.isArray(v.commands) : v.ok !== false)) {
    return unsure(`the command analysis of the tool "${tool}" answered something that is not an analysis ({ok: true, commands} or {ok: false, reason})`);
  }
  if (v.ok === false && typeof v.reason !== 'string') return unsure(`the command analysis of the tool "${tool}" was unsure and gave no reason`);
  return deepFreeze(value as ShellAnalysis);
}

function unsure(reason: string): ShellAnalysis {
  return Object.freeze({ ok: false, reason });
}
