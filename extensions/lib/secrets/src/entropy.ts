/**
 * Shannon entropy in bits per character. Random tokens score high (a 32-character base62 key is
 * near 4.5–5); words, paths and identifiers score low — which is how a secret-named key's value
 * is told from `process.env.API_KEY` or `changeme`.
 */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
