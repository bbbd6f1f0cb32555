import Type, { type Static } from 'typebox';

/**
 * The extension's options: `mcpServers` in the shape Claude Code (`.mcp.json`), Cursor and Claude
 * Desktop use, so a user pastes theirs, plus a few Airlock keys (`startup`, `timeout`,
 * `startupTimeout`, `resources`, `trustAnnotations`).
 *
 * Every server entry names a program to run or a remote service whose tools the model will call:
 * the whole `mcpServers` map is marked `program`, so the host takes it only from a trusted layer
 * (built-in defaults, the user's settings, a trusted project, the command line). An untrusted
 * project can neither start a process nor point Airlock at a URL through it.
 */

const text = (description: string) => Type.String({ minLength: 1, description, 'x-airlock-value': 'text' });

/** How an argument of a server's tool maps to a resource the policy judges. */
export const ResourceKind = Type.Union([Type.Literal('fs.read'), Type.Literal('fs.write'), Type.Literal('net')], {
  description: 'fs.read / fs.write: the argument is a path (resolved against the working folder); net: a URL or host name.',
});

const Common = {
  startup: Type.Optional(
    Type.Union([Type.Literal('lazy'), Type.Literal('eager')], {
      description:
        'lazy (default): started at load only to list its tools, then stopped; started again at its first call. eager: started at load and kept running.',
    }),
  ),
  timeout: Type.Optional(Type.Integer({ minimum: 1, description: 'Time limit of one tool call, in ms (default 60000). The server is told to cancel when it passes.' })),
  startupTimeout: Type.Optional(Type.Integer({ minimum: 1, description: 'Time limit for starting the server and listing its tools, in ms (default 8000).' })),
  resources: Type.Optional(
    Type.Record(
      Type.String({ minLength: 1 }),
      Type.Union([
        Type.Record(Type.String({ minLength: 1 }), ResourceKind, { description: "One tool's arguments the policy judges as resources, e.g. {\"path\": \"fs.write\"}." }),
        ResourceKind,
      ]),
      {
        description:
          'Per tool (its name on the server, or a glob with *): the arguments the policy judges as resources, e.g. {"read_file": {"path": "fs.read"}, "write_file": {"path": "fs.write"}}. ' +
          'A call is then judged like read(path) / write(path) by every rule. The old server-wide form ({"path": "fs.read"}) still applies to every tool that takes the argument, ' +
          'but a read it gives a tool the server does not mark read-only is judged as a write too. A tool no entry maps is judged by its name, and asks unless a rule names it when the server does not mark it read-only.',
      },
    ),
  ),
  trustAnnotations: Type.Optional(
    Type.Boolean({
      description:
        'Believe the server\'s read-only marks (readOnlyHint) for tools no mapping describes (default true). false: every such tool has unknown effects and asks unless a rule names it.',
    }),
  ),
  description: Type.Optional(text('Ignored by Airlock; for people reading the settings.')),
};

/** A server Airlock starts and talks to over stdin/stdout. */
export const StdioServer = Type.Object(
  {
    type: Type.Optional(Type.Literal('stdio')),
    command: Type.String({ minLength: 1, description: 'The program to run, e.g. "npx" or "/usr/local/bin/my-server".' }),
    args: Type.Optional(Type.Array(Type.String(), { description: 'Its arguments.' })),
    env: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.String(), {
        description: 'Extra environment variables. The server gets only these plus HOME, LOGNAME, PATH, SHELL, TERM and USER (never Airlock\'s own environment).',
      }),
    ),
    cwd: Type.Optional(Type.String({ minLength: 1, description: 'Folder to start it in (default: the working folder).' })),
    ...Common,
  },
  { additionalProperties: false },
);

/** A server reached over Streamable HTTP. */
export const HttpServer = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.Literal('http'), Type.Literal('streamable-http')])),
    url: Type.String({ minLength: 1, description: 'The server\'s endpoint, e.g. "https://mcp.example.com/mcp".' }),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String(), { description: 'HTTP headers sent with every request, e.g. Authorization.' })),
    ...Common,
  },
  { additionalProperties: false },
);

export const ServerConfig = Type.Union([StdioServer, HttpServer]);
export type ServerConfig = Static<typeof ServerConfig>;
export type StdioServerConfig = Static<typeof StdioServer>;
export type HttpServerConfig = Static<typeof HttpServer>;

export const McpToolsOptions = Type.Object({
  mcpServers: Type.Record(Type.String({ minLength: 1, maxLength: 40 }), ServerConfig, {
    default: {},
    description: 'The MCP servers whose tools to add, by name (the name prefixes each tool: <server>__<tool>).',
    // A program to run or a service to call: only from a layer the user vouched for.
    'x-airlock-value': 'program',
  }),
});
export type McpToolsOptions = Static<typeof McpToolsOptions>;

/** Defaults for the Airlock keys. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 8_000;

export function isStdio(config: ServerConfig): config is StdioServerConfig {
  return 'command' in config;
}
