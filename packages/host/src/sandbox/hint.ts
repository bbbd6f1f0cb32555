/** What the sandbox allowed, for the hint's wording. */
export interface HintContext {
  writable: readonly string[];
}

/**
 * A short note for the model when a sandboxed command's output shows the sandbox refused
 * something, naming what to change; undefined when nothing points at the sandbox. The output is
 * the command's own (untrusted), so the note only says what the sandbox does, never echoes it.
 *
 * @example
 * sandboxHint('cat: .env: Permission denied', { writable: ['/w'] }) // '[sandbox] … fs.read(<path>) …'
 */
export function sandboxHint(output: string, context: HintContext): string | undefined {
  const notes: string[] = [];
  if (/read-only file system|EROFS/i.test(output)) {
    notes.push(
      `[sandbox] "Read-only file system": the OS sandbox lets commands write only inside the workspace (${context.writable.join(', ')}) and $TMPDIR; ` +
        "Airlock's own settings and git hooks/config stay read-only, and so do files with another name outside the workspace (hard links: pnpm's node_modules/.pnpm, whose files are shared with every project). " +
        "To write elsewhere, ask the user to add the folder to path-policy's roots in their user settings; to change an installed package, copy it into the project instead.",
    );
  }
  if (/Permission denied/.test(output)) {
    notes.push(
      '[sandbox] "Permission denied" may be the OS sandbox hiding a secret file (path-policy\'s secret defaults or an fs.read deny rule). ' +
        'If the task needs it, ask the user to add an allow rule such as fs.read(<path>) in their user settings, or to read it for you.',
    );
  }
  if (/Operation not permitted|EPERM/.test(output)) {
    notes.push(
      '[sandbox] "Operation not permitted" may be the OS sandbox refusing a Unix socket: commands cannot connect to any socket on the machine ' +
        '(an SSH or GPG agent, docker, D-Bus, tmux or screen, X11, a database\'s local socket). Use TCP through the allowed hosts, or ask the user to run that step.',
    );
  }
  if (/Could not resolve host|Network is unreachable|Temporary failure in name resolution|getaddrinfo|ENETUNREACH|EAI_AGAIN|Failed to connect to|CONNECT tunnel failed/.test(output)) {
    // Only a host name's characters are taken from the (untrusted) output.
    const host = /(?:Could not resolve host|Failed to connect to)[: ]+([A-Za-z0-9.:[\]-]{1,253})/.exec(output)?.[1];
    notes.push(
      `[sandbox] network blocked by the sandbox${host === undefined ? '' : `: host ${host}`}: commands reach only the hosts net(...) allow rules cover, and the hosts an approved command names itself (as in curl https://host/), through Airlock's proxy (HTTP_PROXY). ` +
        `If the task needs it, name the host in the command so the user can approve it, or ask the user to add an allow rule such as net(${host ?? '<host>'}) in their user settings.`,
    );
  }
  return notes.length === 0 ? undefined : notes.join('\n');
}
