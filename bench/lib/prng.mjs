/**
 * A seeded pseudo-random generator (mulberry32): small and fast, so every bench generates the
 * same inputs on every run and for both sides. Not for anything secret.
 *
 * @example const rnd = prng(7); rnd(); // a number in [0, 1)
 */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
