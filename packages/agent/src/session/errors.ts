/**
 * A transcript that cannot be found or read. `hint` says what to do (list the sessions, give a
 * longer prefix); the CLI prints both and exits 2.
 */
export class SessionError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}
