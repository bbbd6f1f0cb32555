/**
 * sed and awk programs can write files and run commands themselves (`sed 'w out'`, `s/x/y/e`,
 * `awk '{ system("rm x") }'`). Rather than model those, we recognise the programs that cannot
 * and report the rest as unsure.
 */

/** Skips a delimited part (`/re/`) from i (at the opening delimiter); returns the index after the closing one, or -1. */
function skipDelimited(script: string, i: number, delimiter: string): number {
  for (let j = i + 1; j < script.length; j++) {
    if (script[j] === '\\') j++;
    else if (script[j] === delimiter) return j + 1;
  }
  return -1;
}

/** True when a sed script only edits the stream: no w/W/r/R/e commands and no `w` or `e` flag on s. */
export function sedScriptIsPure(script: string): boolean {
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (' \t\n;{}!'.includes(c)) {
      i++;
      continue;
    }
    // Addresses: line numbers, $, /regex/, \cREGEXc, ranges and steps.
    if (/[0-9$,~+]/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' || c === '\\') {
      const delimiter = c === '/' ? '/' : script[i + 1];
      if (delimiter === undefined) return false;
      i = skipDelimited(script, c === '/' ? i : i + 1, delimiter);
      if (i < 0) return false;
      while (script[i] === 'I' || script[i] === 'M') i++;
      continue;
    }
    if (c === 's' || c === 'y') {
      const delimiter = script[i + 1];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
      i = skipDelimited(script, i + 1, delimiter);
      if (i < 0) return false;
      i = skipDelimited(script, i - 1, delimiter);
      if (i < 0) return false;
      const flags = /^[^;\n}]*/.exec(script.slice(i))![0];
      if (c === 's' && /[we]/.test(flags)) return false;
      i += flags.length;
      continue;
    }
    if ('aic'.includes(c) || 'btT:'.includes(c)) {
      // Text or a label runs to the end of the line (labels also end at ';').
      const end = /^[^\n]*/.exec(script.slice(i))![0];
      i += 'aic'.includes(c) ? end.length : (/^[^;\n]*/.exec(script.slice(i))![0].length);
      continue;
    }
    if ('qQlL'.includes(c)) {
      i++;
      while (/[0-9 ]/.test(script[i] ?? '')) i++;
      continue;
    }
    if ('pdDnNgGhHxz=FP'.includes(c) || c === '#') {
      if (c === '#') i += /^[^\n]*/.exec(script.slice(i))![0].length;
      else i++;
      continue;
    }
    return false; // w, W, r, R, e, v or anything we do not know
  }
  return true;
}

/** True when an awk program cannot run commands or redirect output: no system(), getline, pipes or print redirection. */
export function awkProgramIsPure(program: string): boolean {
  if (/\bsystem\s*\(|\bgetline\b|\bclose\s*\(|\bfflush\b/.test(program)) return false;
  if (/(^|[^|])\|(?!\|)/.test(program)) return false;
  if (/\bprintf?\b[^;{}\n]*>/.test(program)) return false;
  return true;
}
