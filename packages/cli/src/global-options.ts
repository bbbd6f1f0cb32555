/**
 * Options every command takes; they map onto the settings' CLI layer. In a module of their own
 * so that command modules can name them without importing the program (main.ts imports them).
 */
export interface GlobalOptions {
  cwd?: string;
  settings?: string;
  /** A comma list, or false for --no-tools. */
  tools?: string | false;
  excludeTools?: string;
  builtinTools?: boolean;
  sequential?: boolean;
  maxConcurrency?: number;
  trust?: boolean;
  json?: boolean;
  /** Show the stack trace behind a load problem (a throwing `setup`). */
  verbose?: boolean;
}
