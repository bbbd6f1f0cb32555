import type { SandboxProfile, SandboxProfileProvider, SandboxVerdict } from '@airlock/contract';

/**
 * The sandbox profile providers policy extensions registered, combined so that the strictest
 * answer wins: every hidden and read-only place of any provider counts, and a folder is
 * writable only when every provider lets it be written. A provider that throws fails the
 * combination (the sandbox then refuses to start the process).
 *
 * @example
 * const profiles = new SandboxProfiles();
 * profiles.add(({ cwd }) => ({ writable: [cwd], readOnly: [], hidden: [], classify: () => undefined }));
 * profiles.profile('/work')?.writable // ['/work']
 */
export class SandboxProfiles {
  readonly #providers: SandboxProfileProvider[] = [];

  /** Add a provider; returns the function that removes it. */
  add(provider: SandboxProfileProvider): () => void {
    if (typeof provider !== 'function') throw new TypeError(`A sandbox profile provider must be a function (got ${typeof provider}).`);
    this.#providers.push(provider);
    return () => {
      const i = this.#providers.indexOf(provider);
      if (i >= 0) this.#providers.splice(i, 1);
    };
  }

  /** The combined profile for `cwd`, or undefined when no provider is registered. */
  profile(cwd: string): SandboxProfile | undefined {
    if (this.#providers.length === 0) return undefined;
    const all = this.#providers.map((p) => p({ cwd }));
    if (all.length === 1) return all[0];
    // A provider that only adds places (addsOnly) does not narrow the roots or the hosts.
    const narrowing = all.some((p) => p.addsOnly !== true) ? all.filter((p) => p.addsOnly !== true) : all;
    const writable = narrowing[0]!.writable.filter((w) => narrowing.every((p) => p.writable.includes(w)));
    return {
      writable,
      readOnly: [...new Set(all.flatMap((p) => p.readOnly))],
      hidden: [...new Set(all.flatMap((p) => p.hidden))],
      classify: (path) => {
        // The strictest wins: hidden, then guarded (read-only and checked), then read-only.
        let answer: SandboxVerdict | undefined;
        for (const p of all) {
          const c = p.classify(path);
          if (c === 'hidden') return c;
          if (c === 'guarded' || answer === undefined) answer = c ?? answer;
        }
        return answer;
      },
      allowedHosts: narrowing[0]!.allowedHosts?.filter((h) => narrowing.every((p) => p.allowedHosts?.includes(h))) ?? [],
      // Reachable only when every provider lets it through.
      allowsHost: (host) => narrowing.every((p) => hostAllowed(p, host)),
    };
  }
}

/** Whether one profile lets every command reach `host`: its own judgment, else its literal names. */
export function hostAllowed(profile: SandboxProfile, host: string): boolean {
  return profile.allowsHost !== undefined ? profile.allowsHost(host) : (profile.allowedHosts ?? []).includes(host);
}
