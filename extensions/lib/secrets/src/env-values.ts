import { looksSecretName } from './names.js';

/**
 * The values of secret-named environment variables, as literals to look for. A value found
 * verbatim in a result is that secret, whatever its shape — even a low-entropy password.
 */
export interface EnvSecret {
  name: string;
  value: string;
}

/** Shorter values would match ordinary text ("1", "true", "prod"). */
export const MIN_ENV_VALUE_LENGTH = 8;

/** Credential families whose members are often plain settings (AWS_REGION, VAULT_ADDR, AZURE_CLIENT_ID). */
const FAMILY = /^(?:AWS|AZURE|GCP|VAULT)_/i;

/**
 * Whether a variable's value should be hunted for in output. Stricter than looksSecretName
 * (which decides what bash withholds, where a false positive costs nothing): a family prefix
 * alone is not enough, or every `us-east-1` in every result would be redacted.
 */
function holdsSecretValue(name: string): boolean {
  if (!looksSecretName(name)) return false;
  return !FAMILY.test(name) || looksSecretName(name.replace(FAMILY, ''));
}

/** A file path (GOOGLE_APPLICATION_CREDENTIALS=/path/sa.json) names where a secret is, not the secret. */
const PATH = /^(?:~|\.{1,2})?\/[^\s]*$/;

/**
 * The secrets to look for in `env`: each secret variable's value, or for a URL only its
 * password (DATABASE_URL's host and database name are not secret, and redacting them would hide
 * the part of an error message that says which server failed).
 */
export function envSecrets(env: Readonly<Record<string, string | undefined>>): EnvSecret[] {
  const found: EnvSecret[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || !holdsSecretValue(name)) continue;
    const value = raw.includes('://') ? urlPassword(raw) : raw.trim();
    if (value === undefined || value.length < MIN_ENV_VALUE_LENGTH || PATH.test(value)) continue;
    found.push({ name, value });
  }
  // Longest first, so a value that contains another is reported whole.
  return found.sort((a, b) => b.value.length - a.value.length);
}

function urlPassword(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s@/]+)@/i.exec(url);
  return m?.[1];
}
