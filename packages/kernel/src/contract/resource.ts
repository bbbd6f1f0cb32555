/**
 * What a call touches, declared by the tool. Policy rules match these kinds, so a rule such as
 * `deny fs.read(**\/.env)` covers every tool that declares an fs.read, including third-party tools
 * the policy author has never heard of.
 */
export type Resource =
  | { kind: 'fs.read'; path: string }
  | { kind: 'fs.write'; path: string }
  | { kind: 'exec'; command: string; argv?: readonly string[]; cwd?: string }
  | { kind: 'net'; host: string; port?: number; url?: string };

export type ResourceKind = Resource['kind'];

export const RESOURCE_KINDS: readonly ResourceKind[] = ['fs.read', 'fs.write', 'exec', 'net'];
