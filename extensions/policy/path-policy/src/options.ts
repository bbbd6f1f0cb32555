import Type, { type Static } from 'typebox';

const Effect = Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')]);

/**
 * What happens to a call no rule matches, per kind of thing it touches. Each default has a name
 * (`default:<key>` in votes and `policy explain`), so a decision always says where it came from.
 */
export const DefaultEffectSchema = Type.Object(
  {
    readInsideRoots: Type.Optional(Effect),
    writeInsideRoots: Type.Optional(Effect),
    readOutsideRoots: Type.Optional(Effect),
    writeOutsideRoots: Type.Optional(Effect),
    secretRead: Type.Optional(Effect),
    secretWrite: Type.Optional(Effect),
    exec: Type.Optional(Effect),
    net: Type.Optional(Effect),
    unknownEffects: Type.Optional(Effect),
  },
  { additionalProperties: false, default: {} },
);
export type DefaultEffectInput = Static<typeof DefaultEffectSchema>;
export type DefaultEffect = Required<DefaultEffectInput>;

/**
 * The chosen defaults (README "Defaults" says why): inside the roots work freely; leaving them
 * needs a person; well-known secret files are never read.
 */
export const DEFAULT_EFFECT: Readonly<DefaultEffect> = Object.freeze({
  readInsideRoots: 'allow',
  writeInsideRoots: 'allow',
  // Claude Code asks, opencode allows: reading other projects, ~/.bash_history or /proc/self/environ
  // is how secrets leave, so a person decides.
  readOutsideRoots: 'ask',
  writeOutsideRoots: 'ask',
  secretRead: 'deny',
  // Writing .env or ~/.ssh/authorized_keys is sometimes the task and sometimes persistence: ask.
  secretWrite: 'ask',
  exec: 'allow',
  net: 'ask',
  // A tool that says nobody knows what it does (an MCP server's tool no mapping describes, not
  // marked read-only) may write anything its server can: a person decides, or a rule naming it.
  unknownEffects: 'ask',
});

export const OptionsSchema = Type.Object(
  {
    roots: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Workspace roots (absolute, or relative to the project folder; `~/` is home). Default: the project folder.',
        // Paths: the host never takes them from an untrusted project.
        'x-airlock-value': 'path',
      }),
    ),
    defaultEffect: DefaultEffectSchema,
    maxCommandLength: Type.Integer({ minimum: 1, default: 10000, description: 'Longer bash commands are not parsed: ask.' }),
    extraSecrets: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'More secret-file patterns (path-pattern syntax), judged like the built-in list (defaultEffect.secretRead / secretWrite).',
    }),
  },
  { additionalProperties: false },
);
export type Options = Static<typeof OptionsSchema>;
