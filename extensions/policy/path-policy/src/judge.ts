import { lstatSync } from 'node:fs';
import type { Effect, ProtectedRuleName } from '@airlock/contract';
import { linearRegExp } from '@airlock/toolkit/util';
import { strictest, type Command, type Finding, type Item, type ItemOrigin, type MatchedRule } from './items.js';
import type { DefaultEffect } from './options.js';
import type { PathSpace } from './paths/space.js';
import type { CompiledRule, PathPattern } from './rules/types.js';
import type { ProtectedSet } from './protected.js';
import { EXEC_CONFIG_RULE, type ExecConfigSet } from './exec-config/set.js';
import { isLiteralPattern } from './glob.js';
import { escapeDir } from './rules/compile.js';
import { DEVICE_PATHS, NOT_SECRET_NAMES } from './secrets.js';
import { isLiteral } from './glob.js';

/** What judging needs besides the item: the rules, the defaults and how paths compare. */
export interface JudgeContext {
  tool: string;
  rules: readonly CompiledRule[];
  defaults: DefaultEffect;
  space: PathSpace;
  secrets: readonly PathPattern[];
  /** Airlock's own files: never written by a tool. Undefined when the host named none. */
  protect?: ProtectedSet;
  /** Files other programs run as code later (git config and hooks, editor tasks, shell startup): writing one asks. */
  exec?: ExecConfigSet;
}

/** The rule name of the built-in protection, in votes and `policy explain`. */
export const PROTECTED_RULE: ProtectedRuleName = 'default:airlock-protected';
/** The rule name of the default for a tool whose effects are unknown (AgentTool.effects). */
export const UNKNOWN_EFFECTS_RULE = 'default:unknown-effects';
/** The rule name of the default that lets tools read spill files (see ProtectedSet.spillFile). */
export const SPILL_READ_RULE = 'default:read-spill';

/**
 * The verdict on one item: the strictest deny/ask rule that matches it; else an allow rule that
 * matches it; else the default for its kind. A file is judged under each of its spellings
 * (link, hops, target) and the strictest wins, so an allow must cover all of them.
 */
export function judge(item: Item, ctx: JudgeContext): Finding {
  switch (item.type) {
    case 'fixed':
      return { subject: item.subject, effect: item.effect, rule: item.rule, reason: item.reason, matched: [] };
    case 'tool': {
      const bare = ctx.rules.filter((r) => r.matcher.type === 'tool');
      const finding = byRules(`tool ${ctx.tool}`, bare.filter((r) => namesTool(r, ctx.tool)), () =>
        item.unknownEffects === true
          ? {
              effect: ctx.defaults.unknownEffects,
              rule: UNKNOWN_EFFECTS_RULE,
              reason:
                `what ${ctx.tool} does is not known (its tool declares nothing that says, and does not say it only reads), and no rule names it. ` +
                `A rule naming the tool decides instead (e.g. allow: ["${ctx.tool}"]); for an MCP server's tool, a resources mapping in its settings says what it touches`,
            }
          : { effect: 'allow', rule: 'default:tool', reason: `no rule names the tool ${ctx.tool}` },
      );
      const spelling = spellingNote(bare, ctx.tool);
      return spelling === undefined ? finding : { ...finding, reason: `${finding.reason}. ${spelling}` };
    }
    case 'net':
      return byRules(`net ${item.host}`, ctx.rules.filter((r) => r.matcher.type === 'net' && r.matcher.host.test(item.host)), () => ({
        effect: ctx.defaults.net,
        rule: 'default:net',
        reason: `a connection to ${item.host}, which no rule covers${ctx.defaults.net === 'allow' ? '' : `; to allow it without asking, add ${quoteList(netSuggestions(item.host))}`}`,
      }));
    case 'net-runtime': {
      // No host to match: a net deny or ask rule might cover it, so it asks; without any, the default decides.
      const restrictive = ctx.rules.find((r) => r.matcher.type === 'net' && r.effect !== 'allow');
      const effect = restrictive ? 'ask' : ctx.defaults.net;
      return {
        subject: `net ${item.text}`,
        effect,
        rule: 'default:runtime-host',
        reason: restrictive
          ? `connects to ${item.text}, a host only known when the command runs, and the ${restrictive.effect} rule ${restrictive.surface} may cover it`
          : `connects to ${item.text}, a host only known when the command runs`,
        matched: [],
      };
    }
    case 'exec':
      return judgeCommand(item.command, item.from, ctx);
    case 'credential':
      return judgeCredential(item, ctx);
    case 'arg-path': {
      const findings = item.paths.map((path) =>
        byRules(`${ctx.tool} ${path}`, ctx.rules.filter((r) => r.matcher.type === 'tool-path' && namesTool(r, ctx.tool) && ctx.space.matches(r.matcher.path, path, r.effect)), () => ({
          effect: 'allow',
          rule: 'default:tool',
          reason: `no rule covers ${ctx.tool} on ${path}`,
        })),
      );
      return merge(findings, `${ctx.tool} ${item.given}`);
    }
    case 'fs':
      return merge(
        item.paths.map((path) => judgePath(item.kind, path, item.from, ctx, item.execConfig)),
        `${item.kind} ${item.given}`,
      );
    case 'mentions': {
      const what = ctx.protect?.mentioned(item.command);
      const subject = `exec ${item.command}`;
      if (what === undefined) return { subject, effect: 'allow', rule: 'default:none', reason: `${subject}: names none of Airlock's own files`, matched: [] };
      return {
        subject,
        effect: 'ask',
        rule: PROTECTED_RULE,
        reason: `${item.command} names ${what}, and what this program does with its files is not known, so a person decides each time (no allow rule lifts this). Reading Airlock's files with cat, grep or the read tool needs no approval.`,
        matched: [],
      };
    }
    case 'mentions-exec':
      return judgeMentionsExec(item, ctx);
    case 'reach':
      return merge(
        item.paths.map((path) => judgeReach(item.how, path, ctx)),
        `${item.how === 'link' ? 'link to' : 'remove'} ${item.given}`,
      );
  }
}

/**
 * A program whose file use is unknown, naming a file other programs run as code: it may write it
 * (`rsync -a x/ .git/hooks/`, `tar x -C .githooks`, `python -c "open('.git/config','a')…"`), so
 * it is judged as if it wrote each such word. The text is tried as well, for names inside a script.
 */
function judgeMentionsExec(item: { command: string; words: { given: string; paths: string[] }[] }, ctx: JudgeContext): Finding {
  const subject = `exec ${item.command}`;
  const none: Finding = { subject, effect: 'allow', rule: 'default:none', reason: `${subject}: names no file other programs run as code`, matched: [] };
  if (ctx.exec === undefined) return none;
  const unknown = 'and what this program does with its files is not known';
  const findings: Finding[] = [];
  for (const word of item.words) {
    if (!word.paths.some((p) => ctx.exec!.covering(p) !== undefined)) continue;
    const f = merge(word.paths.map((p) => judgePath('fs.write', p, 'shell', ctx)), `${subject}`);
    findings.push(f.effect === 'allow' ? f : { ...f, reason: `${item.command} names ${word.given}, ${unknown}: ${f.reason}` });
  }
  const named = ctx.exec.mentioned(item.command);
  if (named !== undefined && findings.length === 0) {
    findings.push({
      subject,
      effect: 'ask',
      rule: EXEC_CONFIG_RULE,
      reason: `${item.command} names ${named.name}, ${unknown}: ${named.danger}. Code written there runs later, outside any sandbox, so a person decides.`,
      matched: [],
    });
  }
  return findings.length === 0 ? none : merge(findings, subject);
}

/**
 * Removing a folder removes what is in it, and a link to a folder is a way into it: both reach
 * Airlock's own files when the path holds them. Built in, outside the rules, like the write
 * protection. `find -delete` deletes only what its tests select, so it asks instead.
 */
function judgeReach(how: 'remove' | 'find-delete' | 'link', path: string, ctx: JudgeContext): Finding {
  const subject = `${how === 'link' ? 'link to' : 'remove'} ${path}`;
  const what = ctx.protect?.holding(path) ?? (how === 'link' ? ctx.protect?.covering(path) : undefined);
  if (what === undefined) return { subject, effect: 'allow', rule: 'default:none', reason: `${subject}: holds none of Airlock's own files`, matched: [] };
  const effect = how === 'find-delete' ? 'ask' : 'deny';
  const verb = how === 'link' ? `a link to ${path} leads into` : how === 'remove' ? `removing ${path} removes or replaces` : `find -delete under ${path} may delete`;
  return {
    subject,
    effect,
    rule: PROTECTED_RULE,
    reason: `${verb} ${what}, which decides what Airlock allows. No allow rule or saved answer lifts this; change Airlock's files yourself, outside the agent.`,
    matched: [],
  };
}

function judgePath(kind: 'fs.read' | 'fs.write', path: string, from: ItemOrigin, ctx: JudgeContext, planted?: string): Finding {
  const subject = `${kind} ${path}`;
  if (DEVICE_PATHS.includes(path)) return { subject, effect: 'allow', rule: 'default:device', reason: `${path} is a device, not a file`, matched: [] };
  // Before any rule: an allow rule, a saved answer or a settings layer must not lift it.
  const what = kind === 'fs.write' ? ctx.protect?.covering(path) : undefined;
  if (what !== undefined) {
    return {
      subject,
      effect: 'deny',
      rule: PROTECTED_RULE,
      reason: `writing ${path}: it is ${what}, which decides what Airlock allows, and no tool may change it (no allow rule or saved answer lifts this). Reading it is fine; change it yourself, outside the agent.`,
      matched: [],
    };
  }
  const applies = (r: CompiledRule): boolean => {
    const m = r.matcher;
    if (m.type === 'fs') return (m.kind === kind || (m.kind === 'fs.read' && r.effect === 'deny')) && ctx.space.matches(m.path, path, r.effect);
    // Tool(path) rules are about the tool's own file argument and resources, not files inside a bash command.
    if (m.type === 'tool-path') return from !== 'shell' && namesTool(r, ctx.tool) && ctx.space.matches(m.path, path, r.effect);
    return false;
  };
  const danger = kind === 'fs.write' ? (planted ?? ctx.exec?.covering(path)) : undefined;
  if (danger !== undefined) {
    // A broad allow (`fs.write(**)`, `edit(/src/**)`) was not written with this file in mind:
    // only an allow rule naming exactly this path lifts the ask. Deny and ask rules apply as ever.
    const lifting = (r: CompiledRule) => r.effect !== 'allow' || namesOnePath(r);
    return byRules(subject, ctx.rules.filter((r) => applies(r) && lifting(r)), () => ({
      effect: 'ask',
      rule: EXEC_CONFIG_RULE,
      reason:
        `writing ${path}: ${danger}. Code written there runs later, when a person uses their own tools, outside any sandbox, so a person decides. ` +
        `To allow writing exactly this file, add the rule "fs.write(//${escapeDir(path).slice(1)})" to permissions.allow.`,
    }));
  }
  const links = kind === 'fs.write' ? hardLinks(path) : 1;
  if (links > 1) {
    // Where the other names are cannot be known (a file does not list its names), so as for the
    // files above, only an allow rule naming exactly this path lifts the ask.
    const lifting = (r: CompiledRule) => r.effect !== 'allow' || namesOnePath(r);
    return byRules(subject, ctx.rules.filter((r) => applies(r) && lifting(r)), () => ({
      effect: 'ask',
      rule: HARD_LINK_RULE,
      reason:
        `writing ${path}: the file has ${links} names (hard links) and the others may be outside the workspace (pnpm, bun and yarn link installed packages to one store that every project shares), so a write through it may change the same file elsewhere. ` +
        `A person decides; to allow writing exactly this file, add the rule "fs.write(//${escapeDir(path).slice(1)})" to permissions.allow.`,
    }));
  }
  return byRules(subject, ctx.rules.filter(applies), () => defaultForPath(kind, path, ctx));
}

/** The rule name of a write to a file with more than one name (see hardLinks). */
export const HARD_LINK_RULE = 'default:hard-link';

/**
 * How many names (hard links) the regular file at `path` has; 1 for anything else (a folder
 * counts its subfolders, a link is judged by its target, which is another spelling of the item),
 * and for a path that does not exist yet (a new file has one name).
 */
function hardLinks(path: string): number {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.nlink : 1;
  } catch {
    return 1;
  }
}

/** A path rule whose pattern has no wildcard: it names one file (`fs.write(//p/.git/config)`, as "always allow" saves it). */
function namesOnePath(r: CompiledRule): boolean {
  const m = r.matcher;
  // A bare name (`.envrc`) matches at any depth: it is not one path.
  return (m.type === 'fs' || m.type === 'tool-path') && m.path.anchor !== 'anywhere' && isLiteralPattern(m.path.text);
}

function defaultForPath(kind: 'fs.read' | 'fs.write', path: string, ctx: JudgeContext): Omit<Finding, 'subject' | 'matched'> {
  const verb = kind === 'fs.read' ? 'reading' : 'writing';
  const name = path.slice(path.lastIndexOf('/') + 1);
  const secret = !NOT_SECRET_NAMES.includes(name) && ctx.secrets.some((p) => ctx.space.matches(p, path, 'deny'));
  if (secret) {
    const effect = kind === 'fs.read' ? ctx.defaults.secretRead : ctx.defaults.secretWrite;
    return {
      effect,
      rule: kind === 'fs.read' ? 'default:secret-read' : 'default:secret-write',
      reason:
        `${verb} ${path}: it is a well-known secret file` +
        (effect === 'allow' ? '' : `. If this call really needs it, add an allow rule for exactly this file, e.g. "${kind}(//${path.slice(1)})".`),
    };
  }
  // A spill file was named to the model by a result; asking about it (with nobody to ask: a
  // denial) would make the "Full output:" path useless. A link there is judged by its target too.
  if (kind === 'fs.read' && ctx.protect?.spillFile(path) === true) {
    return { effect: 'allow', rule: SPILL_READ_RULE, reason: `reading ${path}: a file in Airlock's spill folder (full tool outputs a result named)` };
  }
  const inside = ctx.space.insideRoots(path);
  const key = `${kind === 'fs.read' ? 'read' : 'write'}${inside ? 'Inside' : 'Outside'}Roots` as const;
  const effect = ctx.defaults[key];
  return {
    effect,
    rule: `default:${kind === 'fs.read' ? 'read' : 'write'}-${inside ? 'inside' : 'outside'}-roots`,
    reason: inside
      ? `${verb} ${path}, inside the workspace`
      : `${verb} ${path}, outside the workspace roots (${ctx.space.roots.join(', ')})` +
        (effect === 'allow' ? '' : `; to allow it without asking, add ${quoteList(pathSuggestions(kind, path, ctx.space.home))}, or add a root.`),
  };
}

function judgeCommand(command: Command, from: ItemOrigin, ctx: JudgeContext): Finding {
  const subject = `exec ${command.words}`;
  const restrictive = (text: string) =>
    ctx.rules.filter((r) => r.effect !== 'allow' && commandRule(r, from, ctx.tool) !== undefined && commandRule(r, from, ctx.tool)!.test(text));
  const matched = new Set<CompiledRule>();
  for (const text of [command.words, ...command.alsoForDeny]) for (const r of restrictive(text)) matched.add(r);
  for (const r of ctx.rules) {
    const re = r.effect === 'allow' ? commandRule(r, from, ctx.tool) : undefined;
    if (re?.test(command.wordsForAllow)) matched.add(r);
  }
  return byRules(subject, [...matched], () => {
    if (command.wrappers.some((w) => /^(sudo|doas|su|pkexec|run0)\b/.test(w))) {
      return { effect: 'ask', rule: 'default:privileged', reason: `${command.words} runs with raised privileges (${command.wrappers.join(' ')})` };
    }
    if (command.unknownArgs) {
      return { effect: 'ask', rule: 'default:runtime-arguments', reason: `${command.words} gets more arguments only when it runs (xargs, find -exec … +), so its files cannot be judged` };
    }
    if (command.dynamic) {
      const risky = ctx.rules.find((r) => r.effect !== 'allow' && firstWordMatches(r, command, from, ctx.tool));
      if (risky) {
        return {
          effect: 'ask',
          rule: 'default:dynamic-arguments',
          reason: `${command.words} has arguments only known when it runs, and the ${risky.effect} rule ${risky.surface} may match them`,
        };
      }
    }
    return { effect: ctx.defaults.exec, rule: 'default:exec', reason: `running ${command.words}` };
  });
}

/** The rule name of a command that prints a stored credential. */
export const CREDENTIAL_RULE = 'default:credential-read';

/**
 * Printing a stored credential is reading a secret: deny and ask rules that match the command
 * apply as to any command; an allow rule lifts the default only when it has no wildcard (it names
 * exactly this command), since `bash(git *)` or `bash(gh *)` were written for ordinary work.
 */
function judgeCredential(item: Extract<Item, { type: 'credential' }>, ctx: JudgeContext): Finding {
  const { command } = item;
  const subject = `exec ${command.words}`;
  const spellings = [command.words, ...command.alsoForDeny];
  const restrictive = ctx.rules.filter((r) => r.effect !== 'allow' && spellings.some((t) => commandRule(r, 'shell', ctx.tool)?.test(t)));
  const exact = ctx.rules.find((r) => {
    const m = r.matcher;
    return r.effect === 'allow' && (m.type === 'exec' || m.type === 'tool-command') && isLiteral(m.spec) && commandRule(r, 'shell', ctx.tool)?.test(command.wordsForAllow);
  });
  const matching = [...restrictive, ...(exact === undefined ? [] : [exact])];
  return byRules(subject, matching, () => {
    const secretRead = ctx.defaults.secretRead;
    const effect = item.certain || secretRead === 'allow' ? secretRead : 'ask';
    return {
      effect,
      rule: CREDENTIAL_RULE,
      reason:
        `${command.words} ${item.certain ? 'prints' : 'may print (depending on a word only known when it runs)'} ${item.what}: that is reading a secret, like opening the file it is kept in` +
        (effect === 'allow' ? '' : `. Tools that need the credential can use it without printing it; if this call really needs it, add an allow rule for exactly this command, e.g. "bash(${command.words})".`),
    };
  });
}

/** The command pattern a rule applies to commands with, if it is a command rule for this call. */
function commandRule(r: CompiledRule, from: string, tool: string): RegExp | undefined {
  const m = r.matcher;
  if (m.type === 'exec') return m.command;
  // bash(…) rules judge the commands of the bash tool's own command line.
  if (m.type === 'tool-command' && namesTool(r, tool) && (from === 'shell' || from === 'resource')) return m.command;
  return undefined;
}

function firstWordMatches(r: CompiledRule, command: Command, from: string, tool: string): boolean {
  const m = r.matcher;
  const spec = m.type === 'exec' || m.type === 'tool-command' ? m.spec : undefined;
  if (spec === undefined || commandRule(r, from, tool) === undefined) return false;
  const first = spec.trim().split(/\s+/)[0] ?? '';
  // The rule's first word as a glob, matched in linear time (glob.ts says why); compiled once per word.
  const re = linearRegExp(`^${first.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`, 'su');
  return re.test(command.argv0) || re.test(command.name);
}

/** deny/ask rules first (strictest wins), then allow rules, then the default. */
/**
 * Whether a tool rule names `tool`: as spelled, or for a deny or ask rule, with `-` and `_` (and
 * case) taken as the same, so that `deny: ["everything__get_sum"]` still guards the server's
 * `everything__get-sum` (fail closed). An allow rule opens only the exact spelling.
 */
export function namesTool(r: CompiledRule, tool: string): boolean {
  const m = r.matcher;
  if (m.type !== 'tool' && m.type !== 'tool-command' && m.type !== 'tool-path') return false;
  return m.tool.test(tool) || (r.effect !== 'allow' && m.loose.test(tool));
}

/**
 * What to say when bare tool rules name `tool` in another spelling (`_` for the server's `-`):
 * the rule to write instead, for `policy explain`, the approver and the model to read.
 */
function spellingNote(rules: readonly CompiledRule[], tool: string): string | undefined {
  const off = rules.filter((r) => r.matcher.type === 'tool' && !r.matcher.tool.test(tool) && r.matcher.loose.test(tool));
  if (off.length === 0) return undefined;
  const applied = off.filter((r) => r.effect !== 'allow').map((r) => `${r.effect} "${r.surface}"`);
  const ignored = off.filter((r) => r.effect === 'allow').map((r) => `allow "${r.surface}"`);
  const parts = [
    ...(applied.length > 0 ? [`the rule${applied.length === 1 ? '' : 's'} ${applied.join(', ')} spell${applied.length === 1 ? 's' : ''} the tool differently and still appl${applied.length === 1 ? 'ies' : 'y'} to it`] : []),
    ...(ignored.length > 0 ? [`${ignored.join(', ')} do${ignored.length === 1 ? 'es' : ''} not apply: an allow opens only the exact name`] : []),
  ];
  return `The tool is spelled "${tool}": ${parts.join('; ')}. Write "${tool}" in the rule${off.length === 1 ? '' : 's'}`;
}

function byRules(subject: string, matching: readonly CompiledRule[], fallback: () => { effect: Effect; rule: string; reason: string }): Finding {
  const matched = matching.map((r) => describe(r, subject));
  const restrictive = strictest(matching.filter((r) => r.effect !== 'allow'));
  const decider = restrictive ?? matching.find((r) => r.effect === 'allow');
  if (decider !== undefined) {
    // The reason (what the model and an approver read) names the rule; where it was written
    // (layer and file) is in `matched`, which `policy explain` shows.
    return {
      subject,
      effect: decider.effect,
      rule: decider.id,
      reason: `${subject}: ${decider.reason ?? `matches the ${decider.effect} rule ${decider.surface}`}`,
      matched,
    };
  }
  const d = fallback();
  return { subject, ...d, matched };
}

function describe(r: CompiledRule, subject: string): MatchedRule {
  return {
    rule: r.id,
    surface: r.surface,
    effect: r.effect,
    ...(r.layer === undefined ? {} : { layer: r.layer }),
    ...(r.file === undefined ? {} : { file: r.file }),
    ...(r.package === undefined ? {} : { package: r.package }),
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    subject,
  };
}

/** One finding for several spellings of a thing: the strictest, with every matched rule. */
function merge(findings: readonly Finding[], subject: string): Finding {
  const worst = strictest(findings);
  if (worst === undefined) return { subject, effect: 'allow', rule: 'default:none', reason: `${subject}: nothing to judge`, matched: [] };
  const matched = findings.flatMap((f) => f.matched);
  return { ...worst, matched: matched.filter((m, i) => matched.findIndex((x) => x.rule === m.rule && x.subject === m.subject) === i) };
}

/** An allow rule offered in a reason, and what it covers, in words. */
interface Suggestion {
  rule: string;
  covers: string;
}

/**
 * Allow rules to offer for a file, narrowest first: exactly this file, then its folder. The
 * folder is left out when it is `/`, a top-level folder (`//etc/**`) or the home folder itself:
 * each would allow far more than the call asked for (`fs.read(///**)` is the whole machine).
 * Glob characters in the path are escaped, so the rule means exactly this path.
 */
function pathSuggestions(kind: 'fs.read' | 'fs.write', path: string, home: readonly string[]): Suggestion[] {
  const exact = { rule: `${kind}(//${escapeDir(path).slice(1)})`, covers: 'this file' };
  const dir = dirOf(path);
  const wide = dir.split('/').filter(Boolean).length < 2 || home.includes(dir);
  return wide ? [exact] : [exact, { rule: `${kind}(//${escapeDir(dir).slice(1)}/**)`, covers: 'its folder' }];
}

/**
 * The allow rule to offer for a host: exactly that host. A wider one (`*.example.co.uk`) cannot
 * be offered safely without knowing which part of a name is a public suffix.
 */
function netSuggestions(host: string): Suggestion[] {
  return [{ rule: `net(${host})`, covers: 'this host' }];
}

/** `"a" (this file)`, or `"a" (this file) or "b" (its folder)`: narrowest first, as given. */
function quoteList(suggestions: readonly Suggestion[]): string {
  const quoted = suggestions.map((s) => `"${s.rule}" (${s.covers})`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function dirOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}
