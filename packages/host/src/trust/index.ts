/** Project trust: which project folders may load their own extensions. See store.ts and resolve.ts. */
export { defaultTrustFile, findTrust, readTrustStore, realDir, setTrust, type TrustEntry, type TrustStore } from './store.js';
export {
  resolveTrust,
  trustModeFromLayers,
  type ResolveTrustOptions,
  type TrustDecision,
  type TrustMode,
  type TrustSettingsLayer,
} from './resolve.js';
