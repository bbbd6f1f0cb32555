import { defaultTrustFile, readSettingsFile, resolveTrust, userSettingsFile, type TrustDecision, type TrustMode } from '@airlock/host';

/**
 * Is a project folder trusted, as the host decides it without asking: `--trust` / `--no-trust`,
 * then the stored decision, then the user's `trust.default`. Commands that install or import a
 * project's code (`extensions add`, `extensions catalog`) refuse an untrusted one.
 *
 * @example if (!(await projectTrust(dir, g.trust, io.env, home)).trusted) throw new UsageError(…)
 */
export async function projectTrust(projectDir: string, flag: boolean | undefined, env: NodeJS.ProcessEnv, home: string): Promise<TrustDecision> {
  return resolveTrust({ projectDir, mode: await userTrustMode(env, home), interactive: false, trustFile: defaultTrustFile(env, home), ...(flag === undefined ? {} : { flag }) });
}

/** The user's `trust.default` (only the user's own settings may set it); "ask" when unreadable. */
async function userTrustMode(env: NodeJS.ProcessEnv, home: string): Promise<TrustMode> {
  try {
    const values = (await readSettingsFile(userSettingsFile(env, home), 'user')).values as { trust?: { default?: TrustMode } } | undefined;
    return values?.trust?.default ?? 'ask';
  } catch {
    return 'ask';
  }
}
