/** Kept in its own file so loading this extension exercises a relative TypeScript import. */
export function greet(greeting: string, name: string, shout: boolean): string {
  const text = `${greeting}, ${name.trim()}!`;
  return shout ? text.toUpperCase() : text;
}
