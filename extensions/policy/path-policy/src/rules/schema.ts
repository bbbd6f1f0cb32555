import Type from 'typebox';

const Effect = Type.Union([Type.Literal('deny'), Type.Literal('ask'), Type.Literal('allow')]);

/**
 * A rule as settings write it: its surface form (`fs.read(**\/.env)`), or an object with `match`
 * and what goes with it. What the pattern means (does it parse, is its glob usable, does the
 * effect agree with its list) is for compile.ts: a schema cannot say it.
 */
export const RuleInputSchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      effect: Type.Optional(Effect),
      match: Type.String({ minLength: 1 }),
      reason: Type.Optional(Type.String()),
      id: Type.Optional(Type.String({ minLength: 1 })),
      examples: Type.Optional(
        Type.Object({ match: Type.Optional(Type.Array(Type.String())), notMatch: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false }),
      ),
    },
    { additionalProperties: false },
  ),
]);

/** The package whose manifest carried a rule (`airlock.rules`); layer and file then name the settings that named the package. */
export const RulePackageSchema = Type.Object({ name: Type.String(), version: Type.String(), dir: Type.Optional(Type.String()) });

/** A rule as the host hands it: with the list it sits in, and the settings layer and file it came from. */
export const RuleEntrySchema = Type.Object({ effect: Effect, rule: RuleInputSchema, layer: Type.String(), file: Type.Optional(Type.String()), package: Type.Optional(RulePackageSchema) });
