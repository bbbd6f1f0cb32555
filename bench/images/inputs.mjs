// Inputs of the images bench, drawn pixel by pixel from a seeded PRNG and encoded with sharp, so
// that every run (and both sides in a run) reads the same bytes. sharp is taken from
// packages/host's own dependencies: bench/ has no package.json of its own, and this is the very
// copy Airlock's resize step uses.

import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prng } from '../lib/prng.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function loadSharp() {
  return createRequire(path.join(ROOT, 'packages/host/package.json'))('sharp');
}


/** An RGB canvas with the few drawing operations a fake screen needs. */
function canvas(width, height) {
  const px = Buffer.alloc(width * height * 3);
  const rect = (x0, y0, w, h, [r, g, b]) => {
    const x1 = Math.min(width, x0 + w);
    const y1 = Math.min(height, y0 + h);
    for (let y = Math.max(0, y0); y < y1; y++) {
      for (let x = Math.max(0, x0), o = (y * width + x) * 3; x < x1; x++, o += 3) {
        px[o] = r;
        px[o + 1] = g;
        px[o + 2] = b;
      }
    }
  };
  /** A linear gradient from colour `a` to `b`, along x (horizontal) or y. */
  const gradient = (x0, y0, w, h, a, b, horizontal) => {
    for (let y = y0; y < Math.min(height, y0 + h); y++) {
      for (let x = x0; x < Math.min(width, x0 + w); x++) {
        const t = horizontal ? (x - x0) / w : (y - y0) / h;
        const o = (y * width + x) * 3;
        for (let c = 0; c < 3; c++) px[o + c] = Math.round(a[c] + (b[c] - a[c]) * t);
      }
    }
  };
  return { px, width, height, rect, gradient };
}

/**
 * A fake IDE screenshot: flat panels (title bar, sidebar, editor, status bar), a gradient banner
 * and a gradient "image" panel, and lines of pixel-font "text" in a few syntax colours. Flat areas
 * and crisp one-colour glyphs are what make real screenshots compress well as PNG and badly as JPEG.
 */
function screenshot(width, height, seed) {
  const rnd = prng(seed);
  const c = canvas(width, height);
  const scale = width / 4000; // the layout is designed at 4000 px wide and scaled down for small inputs
  const s = (v) => Math.max(1, Math.round(v * scale));
  c.rect(0, 0, width, height, [250, 250, 250]);
  c.gradient(0, 0, width, s(120), [40, 90, 200], [140, 60, 190], true);
  const sidebar = s(600);
  c.rect(0, s(120), sidebar, height - s(120), [37, 37, 38]);
  c.rect(0, height - s(60), width, s(60), [0, 122, 204]);
  const panelX = width - s(900);
  c.gradient(panelX, s(160), s(860), s(1200), [255, 214, 170], [90, 140, 210], false);
  c.rect(panelX + s(60), s(1500), s(740), s(200), [220, 53, 69]);
  c.rect(panelX + s(60), s(1760), s(740), s(200), [40, 167, 69]);

  // 64 random 5x7 glyphs, drawn at 2x3 px per dot with 2 px spacing: a legible-looking pixel font.
  const glyphs = Array.from({ length: 64 }, () => Array.from({ length: 35 }, () => rnd() < 0.45));
  const dotW = s(2);
  const dotH = s(3);
  const advance = 5 * dotW + s(2);
  const drawText = (x0, y0, maxX, colours) => {
    let x = x0;
    while (x + advance < maxX) {
      const word = 2 + Math.floor(rnd() * 9);
      const colour = colours[Math.floor(rnd() * colours.length)];
      for (let k = 0; k < word && x + advance < maxX; k++, x += advance) {
        const g = glyphs[Math.floor(rnd() * glyphs.length)];
        for (let i = 0; i < 35; i++) if (g[i]) c.rect(x + (i % 5) * dotW, y0 + Math.floor(i / 5) * dotH, dotW, dotH, colour);
      }
      x += advance; // the space between words
      if (rnd() < 0.08) break; // ragged line ends, like code
    }
  };
  const lineH = s(36);
  for (let y = s(150); y < height - s(100); y += lineH) drawText(s(30), y, sidebar - s(30), [[204, 204, 204], [150, 150, 150]]);
  const editorColours = [[30, 30, 30], [0, 0, 180], [163, 21, 21], [0, 128, 0], [175, 0, 219]];
  for (let y = s(150); y < height - s(100); y += lineH) {
    const indent = s(30) * Math.floor(rnd() * 6);
    drawText(sidebar + s(120) + indent, y, panelX - s(40), editorColours);
  }
  return c.px;
}

/**
 * A photo stand-in: smooth colour fields (random grids upscaled with a cubic kernel, two octaves),
 * a vertical light gradient, and per-pixel grain. Grain is what gives a real photo its entropy.
 */
async function photo(sharp, width, height, seed) {
  const rnd = prng(seed);
  const octave = async (w, h) => {
    const small = Buffer.alloc(w * h * 3);
    for (let i = 0; i < small.length; i++) small[i] = Math.floor(rnd() * 256);
    return sharp(small, { raw: { width: w, height: h, channels: 3 } }).resize(width, height, { kernel: 'cubic' }).raw().toBuffer();
  };
  const coarse = await octave(12, 9);
  const fine = await octave(96, 72);
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0, o = 0; y < height; y++) {
    const light = 40 * (1 - y / height) - 20;
    for (let x = 0; x < width * 3; x++, o++) {
      const v = 0.75 * coarse[o] + 0.25 * fine[o] + light + (rnd() - 0.5) * 24;
      px[o] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
  return px;
}

function noise(width, height, seed) {
  const rnd = prng(seed);
  const px = Buffer.alloc(width * height * 3);
  for (let i = 0; i < px.length; i += 4) {
    // one PRNG draw gives four bytes
    const v = (rnd() * 4294967296) >>> 0;
    px[i] = v & 255;
    if (i + 1 < px.length) px[i + 1] = (v >>> 8) & 255;
    if (i + 2 < px.length) px[i + 2] = (v >>> 16) & 255;
    if (i + 3 < px.length) px[i + 3] = v >>> 24;
  }
  return px;
}

/** The four inputs, by workload id. */
export const INPUTS = [
  { id: 'screenshot_4000x3000_png', file: 'screenshot-4000x3000.png', width: 4000, height: 3000, title: 'screenshot-like 4000x3000 PNG (flat panels, pixel-font text in syntax colours, two gradients): the common case' },
  { id: 'photo_4000x3000_jpeg', file: 'photo-4000x3000.jpg', width: 4000, height: 3000, title: 'photo-like 4000x3000 JPEG, quality 90 (smooth colour fields, light gradient, grain)' },
  { id: 'noise_1600x1600_png', file: 'noise-1600x1600.png', width: 1600, height: 1600, title: '1600x1600 PNG of random noise: within 2000 px, over 4.5 MiB of base64, so only the re-encode path runs' },
  { id: 'small_800x600_png', file: 'small-800x600.png', width: 800, height: 600, title: 'screenshot-like 800x600 PNG, within both limits: no resize needed' },
];

/** Write the inputs into `dir`; returns per input { bytes, base64Bytes, sha1 } and the time taken. */
export async function generateInputs(dir) {
  const sharp = loadSharp();
  const t0 = performance.now();
  const raw = (px, width, height) => sharp(px, { raw: { width, height, channels: 3 } });
  const out = {};
  for (const input of INPUTS) {
    const { width: w, height: h } = input;
    let encoder;
    if (input.id.startsWith('screenshot') || input.id.startsWith('small')) encoder = raw(screenshot(w, h, 11), w, h).png();
    else if (input.id.startsWith('photo')) encoder = raw(await photo(sharp, w, h, 12), w, h).jpeg({ quality: 90 });
    else encoder = raw(noise(w, h, 13), w, h).png();
    const data = await encoder.toBuffer();
    fs.writeFileSync(path.join(dir, input.file), data);
    out[input.id] = { file: input.file, width: w, height: h, bytes: data.length, base64Bytes: 4 * Math.ceil(data.length / 3), sha1: crypto.createHash('sha1').update(data).digest('hex') };
  }
  return { files: out, ms: performance.now() - t0, sharp: sharp.versions?.sharp ?? null };
}
