import type { Effect, Frozen } from '@airlock/contract';
import type { Static } from 'typebox';
import type { RuleInputSchema } from './schema.js';

/** The forms a rule may take in settings, as the host hands them (frozen). */
export type RuleInput = Frozen<Static<typeof RuleInputSchema>>;

/** A rule with the list it sits in and, when known, the settings layer and file it came from. */
export interface RuleEntry {
  effect: Effect;
  rule: RuleInput;
  layer?: string;
  file?: string;
  /** The package that carried it (its manifest's `airlock.rules`); `layer` and `file` named the package. */
  package?: RulePackage;
}

/** A package that carried rules. */
export interface RulePackage {
  readonly name: string;
  readonly version: string;
  readonly dir?: string;
}

/** Where a path pattern is anchored; see README "Rule syntax". */
export type PathAnchor = 'absolute' | 'home' | 'roots' | 'anywhere';

/** A compiled path pattern: the globs it stands for, one per anchor folder. */
export interface PathPattern {
  text: string;
  anchor: PathAnchor;
  /** Full-path globs (the anchor folders already joined in). */
  globs: string[];
  exact: RegExp[];
  folded: RegExp[];
}

/** What a rule looks at. */
export type Matcher =
  | { type: 'tool'; text: string; tool: RegExp; loose: RegExp }
  | { type: 'tool-command'; text: string; tool: RegExp; loose: RegExp; command: RegExp; spec: string }
  | { type: 'tool-path'; text: string; tool: RegExp; loose: RegExp; path: PathPattern }
  | { type: 'fs'; kind: 'fs.read' | 'fs.write'; path: PathPattern }
  | { type: 'exec'; command: RegExp; spec: string }
  | { type: 'net'; host: RegExp; spec: string };

/** A rule ready to match: compiled once, when the policy is created. */
export interface CompiledRule {
  effect: Effect;
  /** The id given in settings, else the surface text: what votes and `policy explain` name. */
  id: string;
  /** The surface text, e.g. `fs.read(**\/.env)`. */
  surface: string;
  matcher: Matcher;
  reason?: string;
  layer?: string;
  file?: string;
  package?: RulePackage;
  examples: { match: string[]; notMatch: string[] };
  /** Which list (deny/ask/allow) and position it came from, for error messages. */
  where: string;
}
