/**
 * Flags for every `bash` Airlock starts for itself (not the person's commands): `bash -c` whose
 * stdin is a socket, as Node's pipes to a child are, and whose environment has no SHLVL takes
 * itself for a command run over ssh and reads the person's ~/.bashrc. Their shell setup then ran
 * at every sandboxed server start and in the CLI's watchdog, outside the sandbox, and took 0.5 s
 * where it starts pyenv (9 ms with these flags).
 *
 * @example
 * spawn('bash', [...BASH_NO_STARTUP_FILES, '-c', script], { stdio: ['pipe', 'ignore', 'inherit'] });
 */
export const BASH_NO_STARTUP_FILES: readonly string[] = ['--norc', '--noprofile'];
