/**
 * The protocol version this package describes, and the versions a server built from it can speak.
 *
 * Versions are `MAJOR.MINOR.PATCH`. Two peers are compatible when MAJOR and MINOR match; PATCH
 * releases only clarify the text of the spec and never change a message. See README.md §Versioning.
 */
export const PROTOCOL_VERSION = '0.2.0';

/** Every version a server built from this package accepts in `initialize`: 0.2 added the session methods (a 0.1 client simply does not call them). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [PROTOCOL_VERSION, '0.1.0'];

const VERSION_PATTERN = /^(\d+)\.(\d+)\.(\d+)$/;

/** `MAJOR.MINOR.PATCH`, each a non-negative integer. */
export function isProtocolVersion(value: string): boolean {
  return VERSION_PATTERN.test(value);
}

/** True when a peer speaking `requested` can talk to one speaking `supported` (same MAJOR.MINOR). */
export function isCompatibleVersion(requested: string, supported: string): boolean {
  const a = VERSION_PATTERN.exec(requested);
  const b = VERSION_PATTERN.exec(supported);
  return a !== null && b !== null && a[1] === b[1] && a[2] === b[2];
}

/**
 * The smallest `maxMessageBytes` a server may announce: an `initialize` or an ordinary prompt always
 * fits (§1.4). Here, with the version, so that a program's argument parsing can read it without
 * loading the schemas.
 */
export const MIN_MESSAGE_BYTES = 8192;
