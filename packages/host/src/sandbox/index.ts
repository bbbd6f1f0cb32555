export { createSandbox, type HostSandbox, type SandboxOptions } from './service.js';
export { detectBubblewrap, INSTALL_FIX, type Detection } from './detect.js';
export { DEFAULT_WALK_BOUNDS, planMounts, planMountsSync, SandboxPlanError, WalkCache, type MountPlan, type PlanOptions, type WalkBounds } from './mounts.js';
export { bwrapArgs } from './bwrap-args.js';
export { sandboxHint } from './hint.js';
