import type { ErrorName } from '#protocol';

/**
 * A failure to be answered as a JSON-RPC error. Handlers throw it; the connection turns it into
 * the error response. The runtime never builds JSON-RPC messages itself.
 */
export class ProtocolFault extends Error {
  readonly errorName: ErrorName;
  readonly data: Record<string, unknown>;

  constructor(errorName: ErrorName, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ProtocolFault';
    this.errorName = errorName;
    this.data = data;
  }
}
