export { createSandbox, type HostSandbox, type SandboxOptions } from './service.js';
export { detectBubblewrap, INSTALL_FIX, type Detection } from './detect.js';
export { planMounts, SandboxPlanError, WalkCache, type MountPlan } from './mounts.js';
export { bwrapArgs } from './bwrap-args.js';
export { sandboxHint } from './hint.js';
