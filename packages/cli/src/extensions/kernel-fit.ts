import { checkKernelRange } from '@airlock/host';
import { KERNEL_VERSION } from '@airlock/kernel';

/** Whether this CLI's kernel can load a package, and when not, why in the host's own words. */
export type KernelFit = { loads: true } | { loads: false; why: string; /** Which side is too old, when the host can tell. */ upgrade?: 'airlock' | 'extension' };

/**
 * The host's own kernel-range judgement (`checkKernelRange`, semver as the host loads), for a
 * package that is not installed: the same answer `extensions add` would give later.
 *
 * @example kernelFit('@acme/guard', '1.2.0', '^9.0.0') // { loads: false, why: '… needs kernel ^9.0.0 …' }
 */
export function kernelFit(packageName: string, version: string, range: string | undefined): KernelFit {
  if (range === undefined) return { loads: false, why: 'no airlock manifest names a kernel range' };
  const refused = checkKernelRange({ packageName, version, range, kernelVersion: KERNEL_VERSION }, { extension: packageName, layer: 'user' });
  if (refused === undefined) return { loads: true };
  // The host's wording is for a load that just failed; nothing was loaded here.
  const why = refused.message.split('\nFix:')[0]!.trim().replace(/; it was not loaded\.$/, '.');
  const upgrade = (refused.details as { upgrade?: unknown }).upgrade;
  return { loads: false, why, ...(upgrade === 'airlock' || upgrade === 'extension' ? { upgrade } : {}) };
}
