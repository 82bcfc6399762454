/**
 * The environment commands run with. A command the model runs can print its environment (or send
 * it somewhere), so anything that looks like a credential is removed before the child starts:
 * the providers' keys, every variable whose name says it holds a secret, every variable whose
 * value carries a credential in a known format (secret-patterns.ts), and Santra's own settings.
 * What a build needs (PATH, HOME, LANG, TERM, …) stays.
 *
 * A URL's credentials (a user and password before the host, a `?token=` or `sig=` parameter)
 * are redacted in place rather than the variable dropped: a package index or proxy the user
 * configured (PIP_INDEX_URL, npm_config_registry, HTTPS_PROXY) then still points where it did
 * and fails its authentication loudly, where an unset one would send the command silently to
 * the public registry (a dependency-confusion risk) or around the proxy. The user is replaced
 * as well as the password, so no real account collects failed logins.
 */
import {
  SECRET_FORMATS,
  SECRET_NAME_PARTS,
  SECRET_NAME_WORDS,
  SECRET_NAMES,
  SECRET_PARAM_PARTS,
} from './secret-patterns.ts';

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

/** What replaces a URL's user and password, and a secret parameter's value. */
const REDACTED = 'REDACTED';

// Kept although they match: the ssh agent's socket is a path, not a secret, and approved
// commands (git over ssh) need it.
const NOT_SECRET = new Set(['SSH_AUTH_SOCK']);

// Santra's own settings mean nothing to a command, and some of them hold secrets.
const SANTRA_PREFIX = /^SANTRA_/i;

// The user and password of a URL: everything between `scheme://` and the last `@` before the
// path. `?` and `#` count as part of it, so that a password holding them unencoded (which
// RFC 3986 forbids but people write) is redacted whole; the price is that a path-less URL with
// an `@` in its query (https://host?to=a@b) loses its host too. A `/` in a password still ends
// it early, as it does for every URL parser.
// The scheme is bounded (registered ones are short) so that a long value of dotted or hyphenated
// words, where every word could start one, takes linear time, not quadratic.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/]*@/gi;
// A URL, to its end or the next whitespace (a list of URLs separated by commas is one match).
const URL_TEXT = /\b[a-z][a-z0-9+.-]{0,31}:\/\/\S*/gi;
// One query, fragment or matrix parameter of a URL: separator, name, value.
const URL_PARAM = /([?&#;])([^=&#;?\s]+)=([^&#;\s"'<>]*)/g;

function secretName(name: string): boolean {
  return SECRET_NAME_WORDS.test(name) || SECRET_NAME_PARTS.test(name) || SECRET_NAMES.test(name);
}

function secretParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: test it as written.
  }
  const parts = decoded.replace(/[-.]/g, '_');
  return SECRET_NAME_WORDS.test(parts) || SECRET_NAME_PARTS.test(parts) || SECRET_PARAM_PARTS.test(parts);
}

/** `value` with the credentials of every URL in it replaced by REDACTED (unchanged when there are none). */
function redactUrlCredentials(value: string): string {
  return value
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(URL_TEXT, (url) =>
      url.replace(URL_PARAM, (param: string, separator: string, name: string, secret: string) =>
        secret === '' || !secretParam(name) ? param : `${separator}${name}=${REDACTED}`,
      ),
    );
}

/**
 * What the command sees of the variable `name` holding `value`: the value, a copy with its URL
 * credentials redacted, or undefined when it is removed.
 */
function scrubbedValue(
  name: string,
  value: string,
  allow: ReadonlySet<string>,
  remove: ReadonlySet<string>,
): string | undefined {
  if (allow.has(name)) return value;
  if (remove.has(name) || PROVIDER_KEYS.includes(name.toUpperCase()) || SANTRA_PREFIX.test(name)) {
    return undefined;
  }
  if (NOT_SECRET.has(name)) return value;
  if (secretName(name) || SECRET_FORMATS.some((format) => format.pattern.test(value))) return undefined;
  return redactUrlCredentials(value);
}

/** The names `scrubEnvironment` removes from `env`, sorted (for a debug log; never log the values). */
export function removedVariables(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): string[] {
  const allow = new Set(options.allow ?? []);
  const remove = new Set(options.remove ?? []);
  return Object.entries(env)
    .filter(([name, value]) => scrubbedValue(name, value ?? '', allow, remove) === undefined)
    .map(([name]) => name)
    .sort();
}

/**
 * A copy of `env` without provider keys, variables whose names contain KEY, TOKEN, SECRET,
 * PASSWORD, CREDENTIAL, WEBHOOK (and a few similar words) or a part DSN, AUTH, PASS, PW, PWD,
 * PAT, CRED(S) (case-insensitive), the 1Password and Bitwarden session variables, variables
 * whose values hold a credential in a known format, SANTRA_* settings and the names in
 * `options.remove`; URLs in the values that remain have their credentials replaced by REDACTED.
 * The names in `options.allow` are kept as they are. Undefined values are dropped.
 */
export function scrubEnvironment(env: NodeJS.ProcessEnv, options: ScrubOptions = {}): NodeJS.ProcessEnv {
  const allow = new Set(options.allow ?? []);
  const remove = new Set(options.remove ?? []);
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const scrubbed = scrubbedValue(name, value, allow, remove);
    if (scrubbed !== undefined) result[name] = scrubbed;
  }
  return result;
}
