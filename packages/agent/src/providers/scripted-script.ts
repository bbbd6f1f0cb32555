import { readFile } from 'node:fs/promises';
import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { StopReason } from '../messages.js';

/**
 * The scripted provider's file: assistant messages, one per model request, as a JSON array or as
 * JSONL (one message per line; blank lines and lines starting with `//` are skipped). A message is
 * either a string (a text answer) or an object:
 *
 * ```json
 * { "content": [
 *     { "type": "text", "text": "Reading it." },
 *     { "type": "toolCall", "name": "read", "arguments": { "path": "a.txt" } },
 *     { "type": "toolCall", "name": "ls", "argumentsText": "{\"path\": " }
 *   ],
 *   "stopReason": "toolUse", "usage": { "input": 120, "output": 30 } }
 * ```
 *
 * `argumentsText` is the raw JSON the model "streamed" (malformed on purpose, to exercise that
 * path); give it or `arguments`, not both. A tool call without `id` gets `call_<request>_<n>`
 * (`call_2_1`: the first call of the second reply), the same on every run. `stopReason` defaults to
 * `toolUse` when the message has tool calls, else `stop`; `error` needs an `errorMessage`.
 */

const ScriptUsage = Type.Object(
  {
    input: Type.Number({ minimum: 0 }),
    output: Type.Number({ minimum: 0 }),
    cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
    cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
    totalTokens: Type.Optional(Type.Number({ minimum: 0 })),
    cost: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const ScriptText = Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: false });
const ScriptThinking = Type.Object(
  { type: Type.Literal('thinking'), thinking: Type.String(), signature: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const ScriptToolCall = Type.Object(
  {
    type: Type.Literal('toolCall'),
    id: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.String({ minLength: 1 }),
    arguments: Type.Optional(Type.Unknown()),
    argumentsText: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const ScriptMessage = Type.Object(
  {
    content: Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))]),
    stopReason: Type.Optional(Type.Union([Type.Literal('stop'), Type.Literal('toolUse'), Type.Literal('length'), Type.Literal('error')])),
    errorMessage: Type.Optional(Type.String()),
    usage: Type.Optional(ScriptUsage),
  },
  { additionalProperties: false },
);

export type ScriptBlock = Static<typeof ScriptText> | Static<typeof ScriptThinking> | Static<typeof ScriptToolCall>;

/** One scripted reply, checked. */
export interface ScriptEntry {
  content: ScriptBlock[];
  stopReason?: Exclude<StopReason, 'aborted'>;
  errorMessage?: string;
  usage?: Static<typeof ScriptUsage>;
}

/** A script that cannot be played: the message names the file and the line (or entry). */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptError';
  }
}

const checkMessage = Compile(ScriptMessage);
const checkBlock: Record<string, ReturnType<typeof Compile<TSchema>>> = {
  text: Compile(ScriptText),
  thinking: Compile(ScriptThinking),
  toolCall: Compile(ScriptToolCall),
};

/**
 * Read and check a script file.
 *
 * @example
 * const script = await loadScript('demo.jsonl'); // throws ScriptError "demo.jsonl:3: content[0].name: is required"
 */
export async function loadScript(file: string): Promise<ScriptEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScriptError(`Cannot read the script ${file}: ${(error as Error).message}.`);
  }
  return parseScript(text, file);
}

/** Check a script given as text (`where` names it in errors). JSON when it starts with `[`, else JSONL. */
export function parseScript(text: string, where: string): ScriptEntry[] {
  const body = text.replace(/^\uFEFF/, '');
  return body.trimStart().startsWith('[') ? parseJsonArray(body, where) : parseJsonLines(body, where);
}

/** Check messages given as values (`where` names them in errors). */
export function checkScript(values: readonly unknown[], where: string): ScriptEntry[] {
  return values.map((value, i) => checkEntry(value, `${where}: entry ${i + 1}`));
}

function parseJsonLines(text: string, where: string): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('//')) return;
    const at = `${where}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ScriptError(`${at}: not valid JSON (${(error as Error).message}). Each line holds one message: a JSON string or object.`);
    }
    entries.push(checkEntry(value, at));
  });
  if (entries.length === 0) throw new ScriptError(`${where}: the script has no messages. Add one JSON message per line.`);
  return entries;
}

function parseJsonArray(text: string, where: string): ScriptEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScriptError(`${where}: not valid JSON (${(error as Error).message}).`);
  }
  if (!Array.isArray(value)) throw new ScriptError(`${where}: a JSON script must be an array of messages.`);
  if (value.length === 0) throw new ScriptError(`${where}: the script has no messages.`);
  const lines = elementLines(text);
  return value.map((entry, i) => checkEntry(entry, `${where}:${lines[i] ?? 1} (entry ${i + 1})`));
}

function checkEntry(value: unknown, at: string): ScriptEntry {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (!checkMessage.Check(value)) throw new ScriptError(`${at}: ${firstProblem(checkMessage, value, '')}. A message is a string or {"content": [...], "stopReason"?, "usage"?}.`);
  const message = value as { content: string | { type: string }[]; stopReason?: ScriptEntry['stopReason']; errorMessage?: string; usage?: ScriptEntry['usage'] };
  const content: ScriptBlock[] =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content.map((block, b) => {
          const check = checkBlock[block.type];
          if (check === undefined) throw new ScriptError(`${at}: content[${b}].type "${block.type}" is not one of text, thinking, toolCall.`);
          if (!check.Check(block)) throw new ScriptError(`${at}: ${firstProblem(check, block, `content[${b}]`)}.`);
          const call = block as Static<typeof ScriptToolCall>;
          if (call.type === 'toolCall' && call.arguments !== undefined && call.argumentsText !== undefined) {
            throw new ScriptError(`${at}: content[${b}] has both "arguments" and "argumentsText"; give one.`);
          }
          return block as ScriptBlock;
        });
  if (message.stopReason === 'error' && (message.errorMessage === undefined || message.errorMessage === '')) {
    throw new ScriptError(`${at}: stopReason "error" needs an "errorMessage" saying what failed.`);
  }
  return {
    content,
    ...(message.stopReason === undefined ? {} : { stopReason: message.stopReason }),
    ...(message.errorMessage === undefined ? {} : { errorMessage: message.errorMessage }),
    ...(message.usage === undefined ? {} : { usage: message.usage }),
  };
}

function firstProblem(check: { Errors(value: unknown): unknown }, value: unknown, prefix: string): string {
  const errors = check.Errors(value) as { instancePath: string; keyword: string; message: string; params: Record<string, unknown> }[];
  const e = errors.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'boolean') ?? errors[0];
  if (e === undefined) return `${prefix || 'the message'} is not valid`;
  if (e.keyword === 'required') {
    const names = (e.params.requiredProperties as string[] | undefined) ?? [];
    return `${join(prefix, e.instancePath) || 'the message'} needs ${names.map((n) => `"${n}"`).join(', ')}`;
  }
  if (e.keyword === 'additionalProperties') {
    const names = (e.params.additionalProperties as string[] | undefined) ?? [];
    return `${join(prefix, e.instancePath) || 'the message'} has unknown ${names.length === 1 ? 'field' : 'fields'} ${names.map((n) => `"${n}"`).join(', ')}`;
  }
  return `${join(prefix, e.instancePath) || 'the message'}: ${e.message}`;
}

function join(prefix: string, pointer: string): string {
  let out = prefix;
  for (const part of pointer.split('/').slice(1)) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

/** The line each top-level element of a JSON array starts on (the text is known to parse). */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectValue && c !== ']') {
      lines.push(line);
      expectValue = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectValue = true;
  }
  return lines;
}
