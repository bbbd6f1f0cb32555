import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usage } from './usage.js';

/** A recorded call to replay, with what was decided for it then (if the recording says). */
export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
  recorded?: string;
}

/** The file's non-empty lines with their line numbers; a file that cannot be read is a usage error. */
export async function readLines(file: string, cwd: string): Promise<[number, string][]> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw usage(`Cannot read ${file}: ${(error as Error).message}.`, 'Give a JSONL file with one recorded call per line.');
  }
  return text
    .split('\n')
    .map((line, i): [number, string] => [i + 1, line.trim()])
    .filter(([, line]) => line !== '');
}

/**
 * One recorded call, from any of the shapes a recording may have: `{name, arguments}` (a model's
 * tool call, arguments as an object or a JSON string), `{tool|toolName, args}`, or an audit-log
 * decision record (`decision` as a string or `{effect}`; its combined `vote` is what a preflight
 * compares with, since an ask a person approved was recorded as allow). An audit-log result record
 * is `'result'`: the same call's decision record is replayed instead. Returns why a line is skipped
 * otherwise, and `{problem}` for an expected decision that is not allow, ask or deny (a failure:
 * the line asked for a check that cannot be made).
 */
export function parseRecord(line: string): RecordedCall | 'result' | string | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  if (r.type === 'result') return 'result';
  const inner = typeof r.call === 'object' && r.call !== null ? (r.call as Record<string, unknown>) : r;
  const tool = [inner.name, inner.tool, inner.toolName].find((x): x is string => typeof x === 'string' && x !== '');
  if (tool === undefined) return 'no tool name (name, tool or toolName)';
  let args = inner.arguments ?? inner.args ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return 'the arguments are a string that is not JSON';
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'the arguments are not an object';
  const d = r.type === 'decision' && typeof r.vote === 'string' ? r.vote : (r.decision ?? r.effect);
  const recorded = typeof d === 'string' ? d : typeof d === 'object' && d !== null && typeof (d as { effect?: unknown }).effect === 'string' ? (d as { effect: string }).effect : undefined;
  // A fixture's expectation with a typo ("denied", "Deny") would never equal a decision: every
  // run would say CHANGED, or worse, a reader would trust a line that checks nothing.
  if (recorded !== undefined && !EFFECTS.includes(recorded)) {
    return { problem: `the expected decision ${JSON.stringify(recorded)} is not one of "allow", "ask" or "deny"; write one of those (lower case), or leave "decision" out to only see what is decided` };
  }
  return { tool, args: args as Record<string, unknown>, ...(recorded === undefined ? {} : { recorded }) };
}

const EFFECTS: readonly string[] = ['allow', 'ask', 'deny'];
