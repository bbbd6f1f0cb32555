// Images bench worker: one (workload, subject) in this process; main.mjs writes the spec.
//
//   airlock         a host opened the way the product opens it (packages/host/dist, default tool
//                   set, empty HOME); timed: host.execute of `read` on the image file, so the read
//                   tool, the kernel's image checks and, past the limits, the host's sharp resize.
//   airlock.resize  createImageResizer() from packages/host/dist alone, on the base64 image.
//   pi              Pi's createReadTool(cwd, { autoResizeImages: true }).execute(id, { path }).
//   pi.resize       Pi's resizeImage() alone (Photon WASM), on the same base64 image.
//
// Every result is checked (not just the last): one image block of the declared format, at most
// 2000 px a side and 4.5 MiB of base64, with the pixel size read from its own header, not from
// what the side says it made. A violation throws, so the worker exits non-zero and the parent
// reports it as a failure instead of timing a wrong answer.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { captureProcessWarnings, measureRuns, peakRssMB, rssMB, workerMain } from '../lib/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const PI_DIST = path.join(HERE, '../peer/node_modules/@mariozechner/pi-coding-agent/dist');

/** The limits both sides default to: Airlock's DEFAULT_IMAGE_LIMITS and Pi's DEFAULT_OPTIONS. */
const MAX_SIDE = 2000;
const MAX_BASE64 = 4.5 * 1024 * 1024;

/** Width and height from a PNG's IHDR or a JPEG's SOFn segment; undefined for anything else. */
function headerSize(bytes) {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { format: 'image/png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1];
      // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { format: 'image/jpeg', width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      }
      i += 2 + bytes.readUInt16BE(i + 2);
    }
  }
  return undefined;
}

/**
 * The image a result holds, checked against the limits. `claimed` is the size the side reports
 * (Airlock's note, Pi's ResizedImage); a mismatch with the header means a wrong note, which a
 * model would use to map coordinates, so it counts as a failure too.
 */
function checkedOutput(subject, content, source, claimed) {
  const images = content.filter((b) => b.type === 'image');
  const text = content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  if (images.length !== 1) throw new Error(`${subject}: expected one image in the result, got ${images.length}; text: ${text.slice(0, 400)}`);
  const [image] = images;
  const head = Buffer.from(image.data.slice(0, 96 * 1024), 'base64');
  const size = headerSize(head);
  if (!size) throw new Error(`${subject}: the output is neither PNG nor JPEG (declared ${image.mimeType})`);
  if (size.format !== image.mimeType) throw new Error(`${subject}: the output is ${size.format} but declared ${image.mimeType}`);
  if (size.width > MAX_SIDE || size.height > MAX_SIDE) throw new Error(`${subject}: the output is ${size.width}x${size.height} px, over ${MAX_SIDE} px a side`);
  if (image.data.length > MAX_BASE64) throw new Error(`${subject}: the output has ${image.data.length} bytes of base64, over ${MAX_BASE64}`);
  // Shrinking must keep the aspect ratio within rounding (each side is rounded on its own).
  const expectedHeight = (size.width * source.height) / source.width;
  if (Math.abs(expectedHeight - size.height) > 1.5) throw new Error(`${subject}: ${size.width}x${size.height} px does not keep the ${source.width}x${source.height} aspect ratio`);
  if (claimed && (claimed.width !== size.width || claimed.height !== size.height)) {
    throw new Error(`${subject}: says ${claimed.width}x${claimed.height} px but the image header says ${size.width}x${size.height}`);
  }
  return { mimeType: image.mimeType, width: size.width, height: size.height, base64Bytes: image.data.length, text };
}

/** "shown at 2000x1500" in Airlock's resize note; no note (image within the limits) means the original size. */
function airlockClaim(text, source) {
  const m = /shown at (\d+)x(\d+)/.exec(text);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : { width: source.width, height: source.height };
}

/** "re-encoded as JPEG at quality 85" in Airlock's note, or undefined. */
function airlockQuality(text) {
  const m = /quality (\d+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

async function openAirlock(spec) {
  const { openHost } = await import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href);
  const home = spec.home;
  // The same options as the tools bench: no user settings, so images.autoResize is on by default.
  const host = await openHost({ cwd: spec.workspace, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH, TMPDIR: process.env.TMPDIR }, homeDir: home });
  if (host.blocked) throw new Error(`host blocked: ${host.blocked.message}`);
  if (!host.kernel.registry.get('read')) throw new Error('the read tool is not loaded');
  return host;
}

workerMain(async (spec) => {
  const warnings = captureProcessWarnings();
  const source = spec.input; // { file, width, height, mimeType }
  const file = path.join(spec.workspace, source.file);
  const t0 = performance.now();
  let call; // (id) => Promise<checked output>
  let close = async () => {};
  if (spec.subject === 'airlock') {
    const host = await openAirlock(spec);
    close = () => host.close();
    call = async (id) => {
      const m = await host.execute({ id, name: 'read', arguments: { path: source.file } });
      if (m.isError) throw new Error(`airlock: read failed: ${JSON.stringify(m.content).slice(0, 400)}`);
      const text = m.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
      return checkedOutput('airlock', m.content, source, airlockClaim(text, source));
    };
  } else if (spec.subject === 'airlock.resize') {
    const [{ createImageResizer }, { describeImage, DEFAULT_IMAGE_LIMITS }] = await Promise.all([
      import(pathToFileURL(path.join(ROOT, 'packages/host/dist/index.js')).href),
      import(pathToFileURL(path.join(ROOT, 'packages/kernel/dist/index.js')).href),
    ]);
    if (DEFAULT_IMAGE_LIMITS.maxDimension !== MAX_SIDE || DEFAULT_IMAGE_LIMITS.maxBytes !== MAX_BASE64) throw new Error(`Airlock's default image limits changed: ${JSON.stringify(DEFAULT_IMAGE_LIMITS)}`);
    const resize = createImageResizer();
    // Read and encoded once, untimed: the subject is the resize step alone.
    const image = { type: 'image', data: fs.readFileSync(file).toString('base64'), mimeType: source.mimeType };
    const request = { info: describeImage(image), maxDimension: MAX_SIDE, maxBytes: MAX_BASE64, signal: undefined };
    call = async () => {
      const blocks = await resize(image, request);
      const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
      return checkedOutput('airlock.resize', blocks, source, airlockClaim(text, source));
    };
  } else if (spec.subject === 'pi') {
    const { pca } = await import('../peer/pi.mjs');
    const tool = pca.createReadTool(spec.workspace, { autoResizeImages: true });
    call = async (id) => {
      const r = await tool.execute(id, { path: source.file });
      const text = r.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
      const m = /displayed at (\d+)x(\d+)/.exec(text);
      return checkedOutput('pi', r.content, source, m ? { width: Number(m[1]), height: Number(m[2]) } : { width: source.width, height: source.height });
    };
  } else if (spec.subject === 'pi.resize') {
    // Not exported by the package's "exports" map, so it is imported by file; the read tool
    // imports the same file, so this is the same module it uses.
    const { resizeImage } = await import(pathToFileURL(path.join(PI_DIST, 'utils/image-resize.js')).href);
    const image = { type: 'image', data: fs.readFileSync(file).toString('base64'), mimeType: source.mimeType };
    call = async () => {
      const r = await resizeImage(image);
      if (!r) throw new Error('pi.resize: resizeImage returned null (could not fit the limits, or Photon failed to load)');
      return checkedOutput('pi.resize', [{ type: 'image', data: r.data, mimeType: r.mimeType }], source, { width: r.width, height: r.height });
    };
  } else throw new Error(`unknown subject ${spec.subject}`);
  const importMs = performance.now() - t0;
  const rssAfterImportMB = rssMB();

  let seq = 0;
  let last;
  const cpuMs = [];
  const once = async () => {
    // CPU time next to wall time: sharp (libvips) runs on a thread pool, Photon on the main thread.
    const c0 = process.cpuUsage();
    last = await call(`c${++seq}`);
    const c = process.cpuUsage(c0);
    cpuMs.push((c.user + c.system) / 1000);
  };

  // The first call pays for loading sharp or Photon's WASM; it is reported on its own.
  const f0 = performance.now();
  await once();
  const firstCallMs = performance.now() - f0;
  const first = last;
  const { runUs } = await measureRuns({ prepare: () => ({}), run: once, warmup: spec.warmup, minReps: spec.minReps, maxReps: spec.maxReps, budgetMs: spec.budgetMs, gcBetweenReps: spec.gcBetweenReps });
  // The output must not depend on the run (both sides are deterministic encoders).
  if (first.base64Bytes !== last.base64Bytes || first.width !== last.width) throw new Error(`${spec.subject}: the output changed between runs (${first.width} px, ${first.base64Bytes} B -> ${last.width} px, ${last.base64Bytes} B)`);

  let sharpInfo = null;
  if (spec.subject.startsWith('airlock')) {
    // Same module instance as the host's (CommonJS cache), read only now so it cannot add to the first call.
    const sharp = createRequire(path.join(ROOT, 'packages/host/package.json'))('sharp');
    sharpInfo = { sharp: sharp.versions.sharp, vips: sharp.versions.vips, concurrency: sharp.concurrency() };
  }
  const result = {
    runUs,
    cpuMs: cpuMs.slice(-runUs.length),
    firstCallMs,
    importMs,
    rssAfterImportMB,
    peakRssMB: peakRssMB(),
    output: { mimeType: last.mimeType, width: last.width, height: last.height, base64Bytes: last.base64Bytes, quality: spec.subject.startsWith('airlock') ? airlockQuality(last.text) : undefined, text: last.text.slice(0, 400) },
    sharpInfo,
    warnings: await warnings(),
  };
  await close();
  return result;
});
