/**
 * The environment commands run with. A command the model runs can print its environment (or send
 * it somewhere), so anything that looks like a credential is removed before the child starts:
 * the providers' keys, every variable whose name says it holds a secret, and Santra's own
 * settings. What a build needs (PATH, HOME, LANG, TERM, …) stays.
 */

export interface ScrubOptions {
  /** Names kept even though they look secret (the user's `tools.allowEnv`). Exact, case-sensitive. */
  allow?: readonly string[];
  /** Further names to remove whatever they are called (e.g. a custom provider's `keyEnv`). */
  remove?: readonly string[];
}

/** Provider keys whose names would not all be caught by the patterns below, or that we name for clarity. */
const PROVIDER_KEYS = [
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
const SECRET_WORDS = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|PRIVATE/i;

// Santra's own settings mean nothing to a command, and some of them hold secrets.
const SANTRA_PREFIX = /^SANTRA_/i;

/** True when `name` is removed unless allowed. */
function looksSecret(name: string, remove: ReadonlySet<string>): boolean {
  return (
    remove.has(name) ||
    PROVIDER_KEYS.includes(name.toUpperCase()) ||
    SECRET_WORDS.test(name) ||
    SANTRA_PREFIX.test(name)
  );
}

/** The names `scrubEnvironment` removes from `env`, sorted (for a debug log; never log the values). */
export function removedVariables(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): string[] {
  const allow = new Set(options.allow ?? []);
  const remove = new Set(options.remove ?? []);
  return Object.keys(env)
    .filter((name) => !allow.has(name) && looksSecret(name, remove))
    .sort();
}

/**
 * A copy of `env` without provider keys, variables whose names contain KEY, TOKEN, SECRET,
 * PASSWORD, CREDENTIAL (and a few similar words; case-insensitive), SANTRA_* settings and the
 * names in `options.remove`, except the names in `options.allow`. Undefined values are dropped.
 */
export function scrubEnvironment(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): NodeJS.ProcessEnv {
  const removed = new Set(removedVariables(env, options));
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !removed.has(name)) result[name] = value;
  }
  return result;
}
