/**
 * Showing a URL without the credentials it may carry. A base URL can hold a user and password
 * (`http://user:pw@proxy/v1`) or a key in its query (`…/v1?api_key=…`): the request needs them,
 * but no message, log line or saved session may show them.
 *
 * Plain string work, not `new URL()`: a message keeps the URL as the user wrote it (no added
 * slash, no re-encoding), and a string that does not parse as a URL (a half-typed one, one quoted
 * inside an SDK's error text) is redacted all the same.
 */

/**
 * A URL with a scheme, up to white space or a quote; trailing punctuation is trimmed later. The
 * scheme is bounded (registered ones are short), so a long run of dotted words, each of which could
 * start one, is scanned in linear time, not quadratic.
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>`]+/gi;

/**
 * Query (or fragment) parameters whose names look secret, matched in the lower-cased name:
 * `key` covers api_key, apikey, x-api-key; `sig` covers sig (Azure SAS), signature,
 * X-Amz-Signature; `auth`, `code` (OAuth), `credential`, `session`, `jwt`…
 */
const SECRET_NAME = /key|token|secret|passw|pwd|sig|auth|code|credential|session|jwt|bearer/;
const SECRET_EXACT = new Set(['pass', 'pw', 'sid']);

const MASK = '***';

/**
 * `text` with every URL in it redacted: its user information (`user:password@`) becomes `***@`
 * and the value of every query or fragment parameter whose name looks secret becomes `***`.
 * Works on a bare URL or on a message that quotes any number of them; never throws, and leaves
 * text without a URL as it is.
 */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const url = withoutTrailingPunctuation(match);
    return redactUrl(url) + match.slice(url.length);
  });
}

function redactUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  // The user information ends at the last `@` before the path (`\` is a slash to a browser). A
  // `?`, `#` or `@` before it counts as part of it, so a password holding one unencoded (which
  // URLs forbid but people write) is hidden whole; the price is that a URL without a path and with
  // an `@` in its query (http://host?to=a@b) loses its host too.
  const slash = url.slice(start).search(/[/\\]/);
  const at = url.slice(start, slash === -1 ? url.length : start + slash).lastIndexOf('@');
  const hostStart = at === -1 ? start : start + at + 1;
  const user = at === -1 ? '' : `${MASK}@`;
  const hostLength = url.slice(hostStart).search(/[/?#\\]/);
  const hostEnd = hostLength === -1 ? url.length : hostStart + hostLength;
  return url.slice(0, start) + user + url.slice(hostStart, hostEnd) + redactParameters(url.slice(hostEnd));
}

/** The path as it is; the values of secret-looking parameters in the query and fragment masked. */
function redactParameters(rest: string): string {
  const hash = rest.indexOf('#');
  const beforeHash = hash === -1 ? rest : rest.slice(0, hash);
  const fragment = hash === -1 ? undefined : rest.slice(hash + 1);
  const question = beforeHash.indexOf('?');
  const path = question === -1 ? beforeHash : beforeHash.slice(0, question);
  const query = question === -1 ? undefined : beforeHash.slice(question + 1);
  return (
    path +
    (query === undefined ? '' : `?${redactPairs(query)}`) +
    (fragment === undefined ? '' : `#${redactPairs(fragment)}`)
  );
}

/** `name=value` pairs separated by `&` (or the older `;`). */
function redactPairs(pairs: string): string {
  return pairs.replace(
    /(^|[&;])([^=&;]+)=([^&;]*)/g,
    (pair: string, separator: string, name: string, value: string) =>
      value === '' || !isSecretName(name) ? pair : `${separator}${name}=${MASK}`,
  );
}

function isSecretName(raw: string): boolean {
  let name = raw;
  try {
    name = decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    // A malformed escape: judge the name as written.
  }
  const lower = name.toLowerCase();
  return SECRET_NAME.test(lower) || SECRET_EXACT.has(lower);
}

/**
 * A URL quoted in prose is often followed by punctuation that is not part of it: "(see
 * http://host/v1)." A closing bracket is kept when the URL opened one.
 */
function withoutTrailingPunctuation(match: string): string {
  let url = match;
  for (;;) {
    const last = url.at(-1);
    if (last === undefined) return url;
    if ('.,;:!?'.includes(last)) url = url.slice(0, -1);
    else if (last === ')' && count(url, '(') < count(url, ')')) url = url.slice(0, -1);
    else if (last === ']' && count(url, '[') < count(url, ']')) url = url.slice(0, -1);
    else if (last === '}' && count(url, '{') < count(url, '}')) url = url.slice(0, -1);
    else return url;
  }
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
