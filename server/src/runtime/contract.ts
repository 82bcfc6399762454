import type * as z from 'zod';
import type {
  ApproveParams,
  ApproveResult,
  AskParams,
  AskResult,
  ClientRequestName,
  FsReadTextFileParams,
  FsReadTextFileResult,
  FsWriteTextFileParams,
  FsWriteTextFileResult,
  InitializeParams,
  MethodName,
  ParamsOf,
  PeerInfo,
  Phase,
  ResultOf,
  ServerCapabilities,
  TerminalRunParams,
  TerminalRunResult,
} from '#protocol';
import type { McpServerDefinition } from '../config/mcp-schema.ts';

/**
 * An MCP server as Santra defines one (Claude Code's `.mcp.json` shape): what an editor adapter
 * hands the runtime for the servers its editor passes (ACP session/new).
 */
export type { McpServerDefinition };

/**
 * What the runtime may send to the client. The connection implements it; the runtime never sees
 * JSON-RPC.
 */
export interface ClientChannel {
  /** Sends a `phase` notification. */
  phase(params: Phase): void;
  /**
   * Sends an `approve` request. Contract: resolves with the client's validated decision; rejects
   * when the client answers with an error or an invalid result, or disconnects, and when `signal`
   * aborts (the request is then cancelled on the wire). Callers treat any rejection as "reject".
   */
  approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult>;
  /** Sends an `ask` request; same contract as `approve`. */
  ask(params: AskParams, signal: AbortSignal): Promise<AskResult>;
  /** §7.5, only to a client that declared `capabilities.fs.readTextFile`; same contract as `approve`. */
  readTextFile(params: FsReadTextFileParams, signal: AbortSignal): Promise<FsReadTextFileResult>;
  /** §7.5, only to a client that declared `capabilities.fs.writeTextFile`; same contract. */
  writeTextFile(params: FsWriteTextFileParams, signal: AbortSignal): Promise<FsWriteTextFileResult>;
  /** §7.5, only to a client that declared `capabilities.terminal`; same contract. */
  runTerminal(params: TerminalRunParams, signal: AbortSignal): Promise<TerminalRunResult>;
}

export interface RequestContext {
  /** Aborted by `$/cancelRequest`, `shutdown`, or the client going away. */
  signal: AbortSignal;
}

/**
 * Contract: receives params already validated against the method's schema; resolves with the
 * result, or rejects with a ProtocolFault (answered as that error). Any other rejection is
 * answered as RequestCancelled if the signal was aborted, and as InternalError otherwise.
 */
export type RequestHandler<M extends ClientRequestName> = (
  params: ParamsOf<M>,
  context: RequestContext,
) => Promise<ResultOf<M>>;

/** Requests the runtime serves. `initialize` and `shutdown` belong to the connection's lifecycle. */
export type RuntimeRequestName = Exclude<ClientRequestName, 'initialize' | 'shutdown'>;

export type RequestHandlers = { [M in RuntimeRequestName]?: RequestHandler<M> };

/** The runtime behind the protocol: everything but the transport and the lifecycle. */
export interface Runtime {
  readonly serverInfo: z.infer<typeof PeerInfo>;
  /** Server-to-client methods this runtime may send. */
  readonly sends: readonly MethodName[];
  readonly handlers: RequestHandlers;
  /**
   * Prepares the runtime for a workspace. Contract: rejects with a ProtocolFault when the params
   * cannot be served (e.g. the workspace root does not exist).
   */
  initialize(
    params: InitializeParams,
    client: ClientChannel,
  ): Promise<Pick<ServerCapabilities, 'phaseTypes' | 'providers' | 'sandbox'>>;
  /**
   * The client has the answer to `initialize` (its `initialized` notification): from now on the
   * runtime may put requests to it unprompted (a project MCP server's trust question).
   */
  initialized?(): void;
  /** Cancels what is running and saves what must not be lost. Called once, on every way out. */
  shutdown(): Promise<void>;
}
