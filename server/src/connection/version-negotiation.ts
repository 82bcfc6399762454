import { isCompatibleVersion, SUPPORTED_PROTOCOL_VERSIONS } from '#protocol';
import { ProtocolFault } from '../support/protocol-fault.ts';

/**
 * Picks the version to speak with a client asking for `requested`: the newest supported version
 * with the same MAJOR.MINOR. Throws UnsupportedProtocolVersion listing what the server speaks.
 */
export function negotiateVersion(
  requested: string,
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): string {
  const match = supported.filter((version) => isCompatibleVersion(requested, version)).at(-1);
  if (match !== undefined) return match;
  throw new ProtocolFault(
    'UnsupportedProtocolVersion',
    `Unsupported protocol version ${requested}: this server speaks ${supported.join(', ')}. Update the client or the server so that MAJOR.MINOR match.`,
    { supported: [...supported], requested },
  );
}
