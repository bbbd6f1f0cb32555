/** A package Airlock publishes: its folder, that folder relative to the root (with `/`), and its package.json. */
export interface PublishedPackage {
  dir: string;
  path: string;
  manifest: Record<string, any>;
}
/** Every folder with a package.json under packages/ and extensions/<group>/. */
export function publishedPackages(root: string): PublishedPackage[];
