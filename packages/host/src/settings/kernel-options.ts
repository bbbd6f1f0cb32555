/**
 * Settings → the kernel's options, so every caller maps them the same way. The kernel ships no
 * image library; `images.autoResize` plugs in the host's (sharp, loaded on first use).
 */
import type { KernelOptions, SelectOptions } from '@airlock/kernel';
import { createImageResizer } from '../images/resize.js';
import type { Settings } from './schema.js';

/**
 * The kernel's tool selection from `settings.tools`.
 *
 * @example toSelectOptions({ allow: ['read'], exclude: [], noBuiltin: false, none: false })
 * // { tools: ['read'], excludeTools: [], noBuiltinTools: false, noTools: false }
 */
export function toSelectOptions(tools: Settings['tools']): SelectOptions {
  return {
    ...(tools.allow !== undefined ? { tools: [...tools.allow] } : {}),
    excludeTools: [...tools.exclude],
    noBuiltinTools: tools.noBuiltin,
    noTools: tools.none,
  };
}

/**
 * The parts of `createKernel`'s options that settings decide.
 *
 * @example createKernel({ cwd, ...toKernelOptions(loaded.settings) })
 */
export function toKernelOptions(settings: Settings): Pick<KernelOptions, 'limits' | 'spill' | 'images' | 'execution'> {
  const { maxLines, maxBytes, spillDir, spillBudget, spillRetentionDays, spillTotalBudget } = settings.limits;
  return {
    limits: { maxLines, maxBytes },
    spill: {
      budgetBytes: spillBudget,
      retentionMs: Math.round(spillRetentionDays * 86_400_000),
      totalBudgetBytes: spillTotalBudget,
      ...(spillDir !== undefined ? { dir: spillDir } : {}),
    },
    images: {
      blockImages: settings.images.blockImages,
      maxDimension: settings.images.maxDimension,
      maxBytes: settings.images.maxBytes,
      ...(settings.images.autoResize ? { resize: createImageResizer() } : {}),
    },
    execution: { ...settings.execution },
  };
}
