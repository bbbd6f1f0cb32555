import Type from 'typebox';
import { describe, expectTypeOf, it } from 'vitest';
import { defineTool, type HandlerFor, type ToolCallEvent, type ToolResultEvent, type VoteInput } from '@airlock/contract';

describe('types: the phase decides what a handler may return', () => {
  it('authorize returns a vote, transform returns arguments, observe returns nothing', () => {
    expectTypeOf<ReturnType<HandlerFor<'tool_call', 'authorize'>>>().toEqualTypeOf<VoteInput | undefined | void | Promise<VoteInput | undefined | void>>();
    expectTypeOf<Parameters<HandlerFor<'tool_call', 'observe'>>[0]>().toEqualTypeOf<ToolCallEvent>();
    expectTypeOf<Parameters<HandlerFor<'tool_result', 'redact'>>[0]>().toEqualTypeOf<ToolResultEvent>();
    // @ts-expect-error — redact may change content and details only, never terminate
    const bad: HandlerFor<'tool_result', 'redact'> = () => ({ terminate: true });
    void bad;
  });

  it('defineTool infers params from the schema', () => {
    defineTool({
      name: 'x',
      label: 'X',
      description: 'd',
      parameters: Type.Object({ n: Type.Integer(), s: Type.Optional(Type.String()) }),
      async execute(_id, params) {
        expectTypeOf(params.n).toEqualTypeOf<number>();
        expectTypeOf(params.s).toEqualTypeOf<string | undefined>();
        return { content: [] };
      },
    });
  });
});
