/**
 * Whether an API key can be sent at all, and where it came from, for messages that say which
 * setting to fix — the environment variable that was read, or the field of the config file —
 * without ever quoting the key.
 */

/** Where a provider's key was read from: an environment variable, or a field of the config file. */
export type KeySource = { env: string } | { file: string; field: string };

/** The first character of `key` that an HTTP header cannot carry, described without the key. */
export function unsendableCharacter(key: string): string | undefined {
  for (let at = 0; at < key.length; at++) {
    const code = key.codePointAt(at) ?? 0;
    if (code < 0x21 || code > 0x7e) {
      const name =
        code === 0x20 ? 'a space' : `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      return `${name} at position ${at + 1}`;
    }
  }
  return undefined;
}

/** "the environment variable GROQ_API_KEY", "providers.groq.apiKey in /home/me/.config/santra/config.json". */
export function describeKeySource(source: KeySource): string {
  return 'env' in source ? `the environment variable ${source.env}` : `${source.field} in ${source.file}`;
}

/** Why `key` cannot be used, naming where it came from; undefined when it can. */
export function keyProblem(providerName: string, key: string, source: KeySource): string | undefined {
  const bad = unsendableCharacter(key);
  if (bad === undefined) return undefined;
  return `The API key for ${providerName} (${describeKeySource(source)}) contains ${bad}, which cannot be sent in an HTTP header. ${PLAIN_ASCII}`;
}

/** What to do about a key an HTTP header cannot carry. */
export const PLAIN_ASCII =
  'Keys are plain ASCII: paste the key itself (not an example such as "sk-ant-…"), without spaces or quotes.';
