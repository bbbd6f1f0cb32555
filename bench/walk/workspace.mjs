// Workspaces for the walk bench: generated once per shape under a cache folder, deterministic.
// A folder holds 25 files (a few of them secrets by name), folders branch six ways, so 50k files
// are about 2,000 folders four levels deep; `deep30` is a chain of 30 folders of 10 files each.
import fs from 'node:fs';
import path from 'node:path';

export const SHAPES = {
  empty: { files: 0 },
  '1k': { files: 1_000 },
  '10k': { files: 10_000 },
  '50k': { files: 50_000 },
  deep30: { chain: 30, perLevel: 10 },
};

const PER_FOLDER = 25;
const FANOUT = 6;

/** The workspace for `shape` under `cacheDir`, made if missing; its path. */
export function workspace(cacheDir, shape) {
  const root = path.join(cacheDir, shape);
  const done = path.join(cacheDir, `${shape}.done`);
  if (fs.existsSync(done)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const spec = SHAPES[shape];
  if (spec === undefined) throw new Error(`unknown shape ${shape}`);
  if (spec.chain !== undefined) {
    let dir = root;
    for (let level = 0; level < spec.chain; level++) {
      dir = path.join(dir, `level${level}`);
      fs.mkdirSync(dir);
      for (let i = 0; i < spec.perLevel; i++) fs.writeFileSync(path.join(dir, i === 0 ? '.env' : `f${i}.ts`), '');
    }
  } else {
    // Breadth first: folder k's children are 6k+1 … 6k+6.
    const folders = Math.ceil(spec.files / PER_FOLDER);
    const dirs = [root];
    for (let k = 1; k < folders; k++) {
      const dir = path.join(dirs[Math.floor((k - 1) / FANOUT)], `d${k}`);
      fs.mkdirSync(dir);
      dirs.push(dir);
    }
    let left = spec.files;
    for (let k = 0; k < folders && left > 0; k++) {
      for (let i = 0; i < PER_FOLDER && left > 0; i++, left--) {
        const name = i === 0 && k % 50 === 0 ? '.env' : i === 1 && k % 80 === 0 ? 'server.pem' : `file${i}.ts`;
        fs.writeFileSync(path.join(dirs[k], name), '');
      }
    }
    // Skipped by the walk, there to be skipped.
    if (spec.files > 0) {
      fs.mkdirSync(path.join(root, 'node_modules', 'pkg'), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules', 'pkg', 'index.js'), '');
    }
  }
  fs.writeFileSync(done, '');
  return root;
}
