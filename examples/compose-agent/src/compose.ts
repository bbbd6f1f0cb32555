import { createAirlock, type Airlock, type CreateAirlockOptions } from '@airlock/sdk';
import { notesOnlyModule } from './notes-only.js';
import { wordCountModule } from './word-count.js';

/**
 * The agent's Airlock, composed in code: the default tools narrowed by settings, a deny rule for
 * secrets, and two extension modules of the program's own (a policy and a tool). Every call any
 * of the loops below makes goes through this one pipeline.
 *
 * @example
 * await using airlock = await composeAirlock({ cwd: process.cwd() });
 */
export function composeAirlock(options: Omit<CreateAirlockOptions, 'settings' | 'extensions'>): Promise<Airlock> {
  return createAirlock({
    ...options,
    settings: {
      tools: { allow: ['read', 'write', 'ls', 'word_count'] },
      permissions: { deny: ['fs.read(**/.env)'] },
    },
    extensions: [notesOnlyModule, wordCountModule],
  });
}
