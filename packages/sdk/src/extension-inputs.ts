import type { InlineExtension } from '@airlock/host';

/**
 * What `createAirlock({ extensions })` takes: a package name or path (as a settings file would
 * name it), an extension object (`defineExtension({...})`, or a module namespace whose default
 * export it is), or an extension object with what its package.json would declare
 * (`{ extension, provides, options, optional }`).
 */
export type ExtensionInput = string | InlineExtension | object;

/**
 * Names and paths go into the settings layer passed in code (they resolve like any settings
 * entry); objects become modules the host loads through the same checks. Throws a TypeError for
 * anything else, saying what is accepted.
 *
 * @example
 * splitExtensions(['@acme/guard', noSecrets, { extension: audit, provides: { hooks: ['tool_result:observe'] } }]);
 * // { names: ['@acme/guard'], modules: [{ extension: noSecrets }, { extension: audit, provides: … }] }
 */
export function splitExtensions(inputs: readonly ExtensionInput[]): { names: string[]; modules: InlineExtension[] } {
  const names: string[] = [];
  const modules: InlineExtension[] = [];
  inputs.forEach((input, i) => {
    if (typeof input === 'string') {
      if (input.trim() === '') throw new TypeError(`extensions[${i}] is an empty string: name a package (@acme/guard) or a path (./tools/guard), or pass the extension object.`);
      names.push(input);
      return;
    }
    if (typeof input !== 'object' || input === null) {
      const kind = input === null ? 'null' : typeof input;
      const hint = kind === 'function' ? ' (a factory function is not an extension: pass what defineExtension returned)' : '';
      throw new TypeError(`extensions[${i}] is ${kind}${hint}; pass a package name, a path, an extension object from defineExtension, or { extension, provides?, options?, optional? }.`);
    }
    modules.push(isWrapped(input) ? input : { extension: input });
  });
  return { names, modules };
}

/** `{ extension, … }` rather than the extension itself (which has `setup`). */
function isWrapped(value: object): value is InlineExtension {
  return 'extension' in value && !('setup' in value);
}
