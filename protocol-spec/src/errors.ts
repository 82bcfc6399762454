import * as z from 'zod';
import { named } from './registry.ts';

/**
 * Error codes defined by JSON-RPC 2.0 and the LSP base protocol, used with their standard meaning.
 * The range -32768..-32000 is reserved by JSON-RPC; Santra defines no code of its own inside it.
 * See README.md §Errors.
 */
export const JsonRpcErrorCodes = {
  /** The frame's body is not valid JSON (or not valid UTF-8). Answered with id null. */
  ParseError: -32700,
  /** The body is JSON but not a valid request: not an object, a batch, a bad `jsonrpc` or `id`. */
  InvalidRequest: -32600,
  /** No such method. */
  MethodNotFound: -32601,
  /** The params do not match the method's schema; the message names the field. */
  InvalidParams: -32602,
  /** A bug in the server. The request failed; the server keeps running. */
  InternalError: -32603,
  /** A request other than `initialize` arrived before `initialize` succeeded (LSP). */
  ServerNotInitialized: -32002,
  /** The request was cancelled with `$/cancelRequest` (LSP). */
  RequestCancelled: -32800,
  /** The receiver understood the request but cannot carry it out (LSP), e.g. a client with no user to put an `ask` to. */
  RequestFailed: -32803,
} as const;

/** Santra's own error codes. They live in -33000..-33099, outside JSON-RPC's reserved range. */
export const SantraErrorCodes = {
  UnsupportedProtocolVersion: -33000,
  MessageTooLarge: -33001,
  DuplicateRequestId: -33002,
  ServerBusy: -33003,
  SessionBusy: -33004,
  UnknownSession: -33005,
  ModelUnavailable: -33006,
  SessionInOtherWorkspace: -33007,
} as const;

export type JsonRpcErrorName = keyof typeof JsonRpcErrorCodes;
export type SantraErrorName = keyof typeof SantraErrorCodes;
export type ErrorName = JsonRpcErrorName | SantraErrorName;

export interface ErrorInfo {
  name: ErrorName;
  code: number;
  /** Whether sending the same message again, unchanged, may succeed. Carried as `data.retryable`. */
  retryable: boolean;
  description: string;
}

/** Every error code a Santra server sends, with its name, retry flag and meaning. */
export const errorCatalog: readonly ErrorInfo[] = [
  {
    name: 'ParseError',
    code: JsonRpcErrorCodes.ParseError,
    retryable: false,
    description: 'The frame body is not valid UTF-8 JSON. The response has id null; the server reads on.',
  },
  {
    name: 'InvalidRequest',
    code: JsonRpcErrorCodes.InvalidRequest,
    retryable: false,
    description:
      'Not a valid request: a non-object body, a batch (arrays are not supported), a missing or wrong `jsonrpc`, an id that is null or not an integer or string, a request after `shutdown`, or a second `initialize`.',
  },
  {
    name: 'MethodNotFound',
    code: JsonRpcErrorCodes.MethodNotFound,
    retryable: false,
    description: 'The server does not implement the method. `initialize` lists the methods it does.',
  },
  {
    name: 'InvalidParams',
    code: JsonRpcErrorCodes.InvalidParams,
    retryable: false,
    description:
      'The params failed the method schema. The message names each offending field and what was expected; `data.issues` lists them.',
  },
  {
    name: 'InternalError',
    code: JsonRpcErrorCodes.InternalError,
    retryable: false,
    description: 'The server failed while handling the request. It keeps serving; details go to its log.',
  },
  {
    name: 'ServerNotInitialized',
    code: JsonRpcErrorCodes.ServerNotInitialized,
    retryable: true,
    description: 'A request other than `initialize` arrived before `initialize` succeeded.',
  },
  {
    name: 'RequestCancelled',
    code: JsonRpcErrorCodes.RequestCancelled,
    retryable: true,
    description: 'The request was cancelled by `$/cancelRequest` before it produced a result.',
  },
  {
    name: 'RequestFailed',
    code: JsonRpcErrorCodes.RequestFailed,
    retryable: false,
    description:
      'The receiver understood the request but cannot carry it out; the message says why. The server sends it when, e.g., a shared session store cannot be reached (§10). A client sends it to decline the server’s `approve` or `ask` — e.g. it has no user to put the question to: a declined `approve` is a rejection, a declined `ask` leaves the question unanswered (the agent is told and goes on).',
  },
  {
    name: 'UnsupportedProtocolVersion',
    code: SantraErrorCodes.UnsupportedProtocolVersion,
    retryable: false,
    description:
      '`initialize` asked for a protocol version the server cannot speak. `data.supported` lists the versions it can.',
  },
  {
    name: 'MessageTooLarge',
    code: SantraErrorCodes.MessageTooLarge,
    retryable: false,
    description:
      "A frame exceeded `capabilities.limits.maxMessageBytes`. Its body was discarded without being parsed; the response carries the request's id when the start of the body shows it (§1.4), else id null. A Content-Length over the hard cap ends the connection.",
  },
  {
    name: 'DuplicateRequestId',
    code: SantraErrorCodes.DuplicateRequestId,
    retryable: true,
    description:
      'A request reused the id of a request that is still in flight. The earlier request is unaffected; resend with a fresh id.',
  },
  {
    name: 'ServerBusy',
    code: SantraErrorCodes.ServerBusy,
    retryable: true,
    description:
      'More requests were in flight than `capabilities.limits.maxConcurrentRequests`. Retry when one has been answered.',
  },
  {
    name: 'SessionBusy',
    code: SantraErrorCodes.SessionBusy,
    retryable: true,
    description: 'A `prompt` named a session that is already running one. Wait for it to end, or cancel it.',
  },
  {
    name: 'UnknownSession',
    code: SantraErrorCodes.UnknownSession,
    retryable: false,
    description: 'The `sessionId` names no session this server knows. Omit it to start a new session.',
  },
  {
    name: 'ModelUnavailable',
    code: SantraErrorCodes.ModelUnavailable,
    retryable: false,
    description:
      'The model cannot be used: unknown, or its provider has no key or endpoint configured. The message says what to set.',
  },
  {
    name: 'SessionInOtherWorkspace',
    code: SantraErrorCodes.SessionInOtherWorkspace,
    retryable: false,
    description:
      'The session was started in another workspace (`data.workspaceRoot`). Resume it with `otherWorkspace: true` to continue it here, or use a server started in that workspace.',
  },
];

export function errorInfo(name: ErrorName): ErrorInfo {
  const info = errorCatalog.find((entry) => entry.name === name);
  if (info === undefined) throw new Error(`unknown error name ${name}`);
  return info;
}

/** The `data` every Santra error carries. Specific errors add fields. */
export const ErrorData = named(
  'ErrorData',
  'The `data` member of an error response. Receivers MUST ignore fields they do not know.',
  z.looseObject({
    retryable: z.boolean().describe('Whether sending the same message again, unchanged, may succeed.'),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('For InvalidParams: each offending field (dotted path) and what was expected.'),
    supported: z
      .array(z.string())
      .optional()
      .describe('For UnsupportedProtocolVersion: the protocol versions the server speaks.'),
    requested: z
      .string()
      .optional()
      .describe('For UnsupportedProtocolVersion: the `protocolVersion` the client asked for.'),
    limit: z
      .number()
      .int()
      .optional()
      .describe(
        'For MessageTooLarge: `maxMessageBytes`; for ServerBusy: `maxConcurrentRequests` — the limit that was hit.',
      ),
    size: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('For MessageTooLarge: the Content-Length of the message, in bytes.'),
    workspaceRoot: z
      .string()
      .optional()
      .describe('For SessionInOtherWorkspace: the workspace the session was started in.'),
  }),
);
export type ErrorData = z.infer<typeof ErrorData>;

/** The JSON-RPC error object. */
export const ResponseErrorObject = named(
  'ResponseError',
  'The `error` member of a JSON-RPC error response.',
  z.object({
    code: z.number().int(),
    message: z.string(),
    data: ErrorData.optional(),
  }),
);
