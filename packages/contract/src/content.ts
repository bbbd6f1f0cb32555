import Type, { type Static } from 'typebox';

/**
 * What a tool returns and what the model sees. The schemas are the runtime check the kernel
 * applies to every tool's return value (a careless third-party tool gets a clear error instead
 * of corrupting the transcript) and the static types at once.
 */

/** A block of text for the model. */
export const TextContent = Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
});
export type TextContent = Static<typeof TextContent>;

/** An image for the model: base64 data plus its MIME type (sniffed by the kernel, never trusted). */
export const ImageContent = Type.Object({
  type: Type.Literal('image'),
  data: Type.String({ description: 'base64-encoded image bytes' }),
  mimeType: Type.String(),
});
export type ImageContent = Static<typeof ImageContent>;

export const Content = Type.Union([TextContent, ImageContent]);
export type Content = TextContent | ImageContent;

/**
 * Model usage a tool incurred itself (a sub-agent, a summariser). These are totals for the call,
 * not context-size estimates; hosts add them to the session's totals.
 */
export const Usage = Type.Object({
  input: Type.Number({ minimum: 0 }),
  output: Type.Number({ minimum: 0 }),
  cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
  cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
  totalTokens: Type.Optional(Type.Number({ minimum: 0 })),
  cost: Type.Optional(Type.Number({ minimum: 0, description: 'total cost in US dollars' })),
});
export type Usage = Static<typeof Usage>;

/**
 * The value `execute` resolves to. `content` enters the model's context; `details` is for UIs,
 * logs and extensions and never reaches the model.
 */
export const AgentToolResultSchema = Type.Object({
  content: Type.Array(Content),
  details: Type.Optional(Type.Unknown()),
  usage: Type.Optional(Usage),
  isError: Type.Optional(Type.Boolean()),
  terminate: Type.Optional(Type.Boolean()),
  limited: Type.Optional(Type.Boolean()),
});

export interface AgentToolResult<D = unknown> {
  content: Content[];
  details?: D;
  usage?: Usage;
  /** Set by tools that report a failure without throwing. Throwing is the usual way. */
  isError?: boolean;
  /** Ask the run to stop after this batch. It stops only when every result of the batch says so. */
  terminate?: boolean;
  /**
   * The tool cut its own output to `ctx.limits` and its text says so in a notice (which lines were
   * shown, of how many, how to get the rest). The kernel's backstop then leaves the text alone while
   * it exceeds the limits by no more than NOTICE_ROOM (room for the notice); past that it cuts as
   * for any tool. A call whose `ctx.truncate` cut something counts as limited without this flag.
   *
   * @example return { content: [{ type: 'text', text: `${kept}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]` }], limited: true };
   */
  limited?: boolean;
}
