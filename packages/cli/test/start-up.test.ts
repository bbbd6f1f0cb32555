import { describe, expect, it } from 'vitest';
import { PROVIDER_FACTORIES } from '@airlock/agent';
import { PROVIDER_NAMES } from '../src/main.js';

describe('the help text names the providers without loading the agent', () => {
  it('PROVIDER_NAMES are the agent\'s providers, in its order', () => {
    expect(PROVIDER_NAMES).toEqual(Object.keys(PROVIDER_FACTORIES));
  });
});
