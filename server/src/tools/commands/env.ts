/**
 * The environment commands run with. A command the model runs can print its environment (or send
 * it somewhere), so anything that looks like a credential is removed before the child starts:
 * the providers' keys, every variable whose name says it holds a secret, every variable whose
 * value carries one (a URL with a user or password, a token in a known format), and Santra's own
 * settings. What a build needs (PATH, HOME, LANG, TERM, …) stays.
 */

export interface ScrubOptions {
  /** Names kept even though they look secret (the user's `tools.allowEnv`). Exact, case-sensitive. */
  allow?: readonly string[];
  /** Further names to remove whatever they are called (e.g. a custom provider's `keyEnv`). */
  remove?: readonly string[];
}

/** Provider keys whose names would not all be caught by the patterns below, or that we name for clarity. */
export const PROVIDER_KEYS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'GROQ_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'PERPLEXITY_API_KEY',
  'NVIDIA_API_KEY',
  'OPENROUTER_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
];

// Words that mark a secret wherever they appear in a name (AWS_SECRET_ACCESS_KEY, GH_TOKEN,
// PGPASSWORD, GOOGLE_APPLICATION_CREDENTIALS, …). Over-matching (TOKENIZERS_PARALLELISM) costs a
// harmless variable; under-matching leaks a key, so the patterns are broad.
const SECRET_WORDS =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|PRIVATE|AUTHORI[SZ]ATION|BEARER|JWT/i;

// Words that mark a secret as a whole part of a name, between underscores or at an end:
// SENTRY_DSN, NPM_CONFIG__AUTH, BASIC_AUTH_HEADER, DB_PASS — but not GIT_AUTHOR_NAME or PWD.
const SECRET_PARTS = /(?:^|_)(?:DSN|AUTH|PASS|PW)(?:_|$)/i;

// Kept although they match: the ssh agent's socket is a path, not a secret, and approved
// commands (git over ssh) need it.
const NOT_SECRET = new Set(['SSH_AUTH_SOCK']);

// Values that carry a credential whatever the variable is called: a URL with a user (and
// password) before the host (DATABASE_URL=postgres://app:pw@db, a Sentry DSN's key), and
// tokens in the vendors' published formats, and private keys.
const SECRET_VALUES: readonly RegExp[] = [
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i,
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})/,
  /\b(?:sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36})/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

// Santra's own settings mean nothing to a command, and some of them hold secrets.
const SANTRA_PREFIX = /^SANTRA_/i;

/** True when the variable `name` holding `value` is removed unless allowed. */
function looksSecret(name: string, value: string, remove: ReadonlySet<string>): boolean {
  if (remove.has(name) || PROVIDER_KEYS.includes(name.toUpperCase()) || SANTRA_PREFIX.test(name)) return true;
  if (NOT_SECRET.has(name)) return false;
  return (
    SECRET_WORDS.test(name) || SECRET_PARTS.test(name) || SECRET_VALUES.some((pattern) => pattern.test(value))
  );
}

/** The names `scrubEnvironment` removes from `env`, sorted (for a debug log; never log the values). */
export function removedVariables(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): string[] {
  const allow = new Set(options.allow ?? []);
  const remove = new Set(options.remove ?? []);
  return Object.entries(env)
    .filter(([name, value]) => !allow.has(name) && looksSecret(name, value ?? '', remove))
    .map(([name]) => name)
    .sort();
}

/**
 * A copy of `env` without provider keys, variables whose names contain KEY, TOKEN, SECRET,
 * PASSWORD, CREDENTIAL (and a few similar words) or a part DSN, AUTH, PASS, PW (case-insensitive),
 * variables whose values hold a URL with credentials or a known token format, SANTRA_* settings
 * and the names in `options.remove`, except the names in `options.allow`. Undefined values are
 * dropped.
 */
export function scrubEnvironment(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): NodeJS.ProcessEnv {
  const removed = new Set(removedVariables(env, options));
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !removed.has(name)) result[name] = value;
  }
  return result;
}
