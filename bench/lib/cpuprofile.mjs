// Summarise a V8 .cpuprofile (node --cpu-prof): top functions by self time and by inclusive
// time, plus the hottest source lines, mapped back to TypeScript through the build's source maps
// when a `.js.map` sits next to the file.

import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const sourceMaps = new Map();

function loadSourceMap(file) {
  if (sourceMaps.has(file)) return sourceMaps.get(file);
  let map = null;
  try {
    const payload = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8'));
    map = { map: new SourceMap(payload), dir: path.dirname(file) };
  } catch {
    map = null;
  }
  sourceMaps.set(file, map);
  return map;
}

/** "file:line" for a 0-based V8 (line, column), mapped to the original source when possible. */
function locate(url, line0, col0, root, scriptId) {
  // No URL: a V8/Node builtin (scriptId 0), or code compiled at run time with new Function or
  // eval (tapable compiles every hook's call path that way).
  if (!url) return scriptId && scriptId !== '0' && scriptId !== 0 ? `(new Function/eval code, script ${scriptId}:${line0 + 1})` : '(native)';
  let file = url;
  if (url.startsWith('file://')) file = fileURLToPath(url);
  else if (!path.isAbsolute(url)) return `${url}:${line0 + 1}`;
  const sm = loadSourceMap(file);
  if (sm) {
    const entry = sm.map.findEntry(line0, Math.max(col0, 0));
    if (entry?.originalSource) {
      const src = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : path.resolve(sm.dir, entry.originalSource);
      return `${path.relative(root, src)}:${entry.originalLine + 1}`;
    }
  }
  return `${path.relative(root, file)}:${line0 + 1}`;
}

/**
 * @param {string} file the .cpuprofile
 * @param {{ focusDir?: string, top?: number, root?: string }} options focusDir: also list the
 *   top entries restricted to files under that folder (the kernel's dist)
 */
export function summarizeProfile(file, { focusDir, top = 15, root = process.cwd() } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Self time per node from the sample stream (timeDeltas[i] is the time before sample i).
  const selfUs = new Map();
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = deltas[i + 1] ?? deltas[i] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(dt, 0));
  }
  let totalUs = 0;
  for (const v of selfUs.values()) totalUs += v;

  const keyOf = (n) => {
    const cf = n.callFrame;
    return `${cf.functionName || '(anonymous)'} ${locate(cf.url, cf.lineNumber, cf.columnNumber, root, cf.scriptId)}`;
  };
  const inFocus = (n) => {
    if (!focusDir) return false;
    const url = n.callFrame.url;
    const f = url?.startsWith('file://') ? fileURLToPath(url) : url;
    return Boolean(f) && f.startsWith(focusDir);
  };

  const self = new Map();
  const inclusive = new Map();
  const lines = new Map();
  for (const [id, us] of selfUs) {
    const n = nodes.get(id);
    const key = keyOf(n);
    self.set(key, (self.get(key) ?? 0) + us);
    // Inclusive: credit each distinct function on the stack once.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = keyOf(nodes.get(cur));
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
    // Line-level ticks inside the function (positionTicks are 1-based lines of the generated file).
    const ticks = n.positionTicks ?? [];
    const hitSum = ticks.reduce((a, t) => a + t.ticks, 0);
    for (const t of ticks) {
      const where = locate(n.callFrame.url, t.line - 1, 0, root, n.callFrame.scriptId);
      const k = `${where} (in ${n.callFrame.functionName || '(anonymous)'})`;
      lines.set(k, (lines.get(k) ?? 0) + (hitSum ? (us * t.ticks) / hitSum : 0));
    }
  }

  const pct = (us) => `${((100 * us) / (totalUs || 1)).toFixed(1).padStart(5)}%`;
  const table = (map, filter, title) => {
    const rows = [...map].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, top);
    return [title, ...rows.map(([k, us]) => `  ${pct(us)}  ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`)].join('\n');
  };
  const focusKeys = new Set();
  if (focusDir) for (const n of profile.nodes) if (inFocus(n)) focusKeys.add(keyOf(n));
  const notIdle = (k) => !/^\((idle|program|root)\)/.test(k);

  const parts = [`profile ${path.relative(root, file)}: ${(totalUs / 1000).toFixed(0)} ms sampled`];
  parts.push(table(self, notIdle, 'Top self time (all code):'));
  if (focusDir) {
    parts.push(table(self, (k) => focusKeys.has(k), `Top self time in ${path.relative(root, focusDir)} (source-mapped):`));
    parts.push(table(inclusive, (k) => focusKeys.has(k), `Top inclusive time in ${path.relative(root, focusDir)} (source-mapped):`));
  }
  const pkgPrefix = focusDir ? path.relative(root, path.resolve(focusDir, '..')) : '';
  parts.push(table(lines, (k) => k.startsWith(pkgPrefix), `Hottest lines${focusDir ? ` in ${pkgPrefix}` : ''} (source-mapped, from positionTicks):`));
  return parts.join('\n\n');
}
