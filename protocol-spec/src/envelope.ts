/**
 * §2: the JSON-RPC 2.0 envelope every message travels in, published with the rest so that an
 * implementer validates a whole message from the schema alone. The method table (methods.ts)
 * says what `params` and `result` hold for each method; this says what holds them.
 */
import * as z from 'zod';
import { RequestId } from './common.ts';
import { ResponseErrorObject } from './errors.ts';
import { named } from './registry.ts';

const jsonrpc = z.literal('2.0').describe('Always "2.0".');
/** A member the kind of message must not have (a notification's id; a response's other half). */
const absent = z.never().optional();
const params = z
  .union([z.record(z.string(), z.unknown()), z.null()])
  .optional()
  .describe(
    "An object (its schema is the method's params type), or absent; `null` is read as absent (§2.4).",
  );

export const JsonRpcRequest = named(
  'JsonRpcRequest',
  'A request: a method call that is answered (§2). Batches (arrays) are not supported (§2.1).',
  z.object({ jsonrpc, id: RequestId, method: z.string().min(1), params }),
);

export const JsonRpcNotification = named(
  'JsonRpcNotification',
  'A notification: a method call without an `id`, never answered.',
  z.object({ jsonrpc, id: absent, method: z.string().min(1), params }),
);

export const JsonRpcSuccess = named(
  'JsonRpcSuccess',
  "A response with the method's result. `id` is the request's; it is `null` only in an error response to a message whose id could not be read.",
  z.object({
    jsonrpc,
    id: RequestId,
    result: z.unknown().describe("The method's result type; `null` where it has none."),
    error: absent,
  }),
);

export const JsonRpcError = named(
  'JsonRpcError',
  "A response with an error (§5). `id` is `null` when the request's id could not be read (a ParseError).",
  z.object({ jsonrpc, id: z.union([RequestId, z.null()]), error: ResponseErrorObject, result: absent }),
);

export const JsonRpcMessage = named(
  'JsonRpcMessage',
  'Any message either side writes: a request, a notification, or a response (exactly one of `result` and `error`).',
  z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcSuccess, JsonRpcError]),
);
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>;
