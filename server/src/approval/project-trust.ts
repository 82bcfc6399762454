/**
 * Trust in what a project supplies that runs code on the user's machine: an MCP server in the
 * project's `.mcp.json`, hooks in its `.santra/settings.json`. Cloning a repository must not be
 * enough to run its code, so nothing of the kind runs until a person has approved the exact
 * definition, through `approve` with `kind: "trust"` (protocol-spec §7.7).
 *
 * A decision is kept per project, source file, subject and name, with a hash of the definition:
 * a changed definition (a pull that edits `.mcp.json`) is asked about again, marked `changed`.
 * The store is one JSON file in Santra's config directory, mode 0600 (it says which projects the
 * user works on), written under a lock so that two servers trusting at once both keep theirs.
 *
 * Only a person can trust: the request is always `protected` (no remembered allow-all, no
 * auto-approve answers it), a server started with --auto-approve does not count, and with no
 * client able to approve, nothing is trusted. A refusal is remembered for the life of the server,
 * so the user is not asked again every prompt; the next server asks again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ApproveParams, ApproveResult, TrustSubject } from '#protocol';
import { withFileLock } from '../config/file-lock.ts';
import { describeFsError, errorCode, errorMessage } from '../support/errno.ts';

export type { TrustSubject };

/** The name of the store in Santra's config directory. */
export const TRUST_FILE = 'project-trust.json';

/** Something a project supplies, to be trusted before it runs. */
export interface TrustRequest {
  subject: TrustSubject;
  /** The project: its workspace root, absolute (links resolved). */
  project: string;
  /** The file that defines it, absolute (e.g. `<root>/.mcp.json`). */
  source: string;
  /** Its name in that file: the server's name, or the hooks' event. */
  name: string;
  /**
   * The definition exactly as the file has it, before any `${VAR}` expansion: what is hashed, and
   * what the person is shown (so no secret from the environment is shown or stored).
   */
  definition: unknown;
}

/** The outcome of asking for trust. Nothing the request names may run unless `trusted`. */
export type TrustDecision =
  | { trusted: true }
  | {
      trusted: false;
      /** rejected: a person said no; unavailable: no client can ask a person; failed: the question could not be put. */
      reason: 'rejected' | 'unavailable' | 'failed';
      /** What to tell the user (and the model, where it asks for the thing). */
      message: string;
    };

/** Where a run waits on the answer, when one does (hooks asked for during a tool call). */
export interface TrustRunIds {
  sessionId: string;
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
}

export interface ProjectTrustOptions {
  /** Santra's config directory, where the store lives. */
  configDir: string;
  /**
   * Sends `approve` to the client; undefined when the client declared it cannot answer approvals
   * (then nothing is trusted that was not trusted before).
   */
  approve: ((params: ApproveParams, signal: AbortSignal) => Promise<ApproveResult>) | undefined;
}

interface StoredEntry {
  project: string;
  source: string;
  subject: TrustSubject;
  name: string;
  /** sha256 of the canonical JSON of the definition. */
  hash: string;
  trustedAt: string;
}

interface StoredTrust {
  version: 1;
  entries: StoredEntry[];
}

const PROTECTED_REASON: Record<TrustSubject, string> = {
  mcp_server:
    'a project-supplied MCP server runs a program or connects to a server on your behalf; only trust a definition you have read',
  hooks: 'project-supplied hooks run commands on your machine; only trust a definition you have read',
};

/**
 * The trust store and the one way to ask for trust. One per server (a connection); the hooks and
 * the MCP client share it, so they share the file, the lock and the remembered refusals.
 */
export class ProjectTrust {
  readonly #options: ProjectTrustOptions;
  readonly #file: string;
  /** Questions being asked now, by key and hash: a second asker waits for the same answer. */
  readonly #asking = new Map<string, Promise<TrustDecision>>();
  /** Definitions a person refused while this server runs, by key and hash. */
  readonly #refused = new Set<string>();

  constructor(options: ProjectTrustOptions) {
    this.#options = options;
    this.#file = join(options.configDir, TRUST_FILE);
  }

  /** The store's path, for messages and `santra mcp list`. */
  get file(): string {
    return this.#file;
  }

  /** Whether this exact definition was trusted before. Never asks; never throws (an unreadable store trusts nothing). */
  async isTrusted(request: TrustRequest): Promise<boolean> {
    const entry = (await this.#read().catch(() => EMPTY)).entries.find(sameKey(request));
    return entry !== undefined && entry.hash === definitionHash(request.definition);
  }

  /**
   * Trusted already, or asks a person now: resolves with the decision, and remembers a yes in the
   * store. Contract: never rejects; a store that cannot be written still trusts for this server
   * (the message in the log says why it will be asked again).
   */
  async ensure(
    request: TrustRequest,
    options: { signal: AbortSignal; run?: TrustRunIds; onStoreError?: (message: string) => void },
  ): Promise<TrustDecision> {
    const hash = definitionHash(request.definition);
    const key = `${keyOf(request)}\0${hash}`;
    if (await this.isTrusted(request)) return { trusted: true };
    if (this.#refused.has(key)) return refusedDecision(request);
    const pending = this.#asking.get(key);
    if (pending !== undefined) return pending;
    const asking = this.#ask(request, hash, options).finally(() => this.#asking.delete(key));
    this.#asking.set(key, asking);
    const decision = await asking;
    if (!decision.trusted && decision.reason === 'rejected') this.#refused.add(key);
    return decision;
  }

  /** Forgets every decision about `request`'s name in its source (the user revoked it). */
  async revoke(request: Omit<TrustRequest, 'definition'>): Promise<boolean> {
    let removed = false;
    await this.#update((stored) => {
      const kept = stored.entries.filter((entry) => !sameKey(request)(entry));
      removed = kept.length !== stored.entries.length;
      return { ...stored, entries: kept };
    });
    return removed;
  }

  async #ask(
    request: TrustRequest,
    hash: string,
    options: { signal: AbortSignal; run?: TrustRunIds; onStoreError?: (message: string) => void },
  ): Promise<TrustDecision> {
    const what = describe(request);
    if (this.#options.approve === undefined)
      return {
        trusted: false,
        reason: 'unavailable',
        message: `${what} was not started: it has not been trusted, and this client cannot ask a person (it did not declare capabilities.approve; --auto-approve does not count). Run Santra in a terminal in this project once to review and trust it.`,
      };
    const stored = await this.#read().catch(() => EMPTY);
    const params: ApproveParams = {
      kind: 'trust',
      ...options.run,
      protected: true,
      protectedReason: PROTECTED_REASON[request.subject],
      subject: request.subject,
      name: request.name,
      source: displaySource(request),
      definition: JSON.stringify(request.definition, null, 2),
      changed: stored.entries.some(sameKey(request)),
    };
    let answer: ApproveResult;
    try {
      answer = await this.#options.approve(params, options.signal);
    } catch (error) {
      return {
        trusted: false,
        reason: 'failed',
        message: `${what} was not started: the client did not answer the question whether to trust it (${errorMessage(error)}).`,
      };
    }
    switch (answer.decision) {
      case 'allow':
      case 'allow_all':
        await this.#remember(request, hash).catch((error: unknown) =>
          options.onStoreError?.(
            `Trusted ${what} for this session only: the trust store ${this.#file} could not be written (${errorCode(error) === undefined ? errorMessage(error) : describeFsError(errorCode(error))}). Santra will ask again next time.`,
          ),
        );
        return { trusted: true };
      case 'reject':
      case 'feedback':
        return refusedDecision(request);
      default: {
        const exhaustive: never = answer;
        throw new Error(`unknown decision ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  async #remember(request: TrustRequest, hash: string): Promise<void> {
    await this.#update((stored) => ({
      ...stored,
      entries: [
        ...stored.entries.filter((entry) => !sameKey(request)(entry)),
        {
          project: request.project,
          source: request.source,
          subject: request.subject,
          name: request.name,
          hash,
          trustedAt: new Date().toISOString(),
        },
      ],
    }));
  }

  async #read(): Promise<StoredTrust> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return EMPTY;
      throw error;
    }
    return parseStore(text);
  }

  /** Read, change and write the store under its lock; the file is 0600 in a 0700 directory. */
  async #update(change: (stored: StoredTrust) => StoredTrust): Promise<void> {
    const dir = this.#options.configDir;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await withFileLock(join(dir, `.${TRUST_FILE}.lock`), async () => {
      // A corrupt store is replaced (it only ever grants, so losing it only means asking again).
      const current = await this.#read().catch(() => EMPTY);
      const next = change(current);
      const temp = join(dir, `.${TRUST_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
        await chmod(temp, 0o600);
        await rename(temp, this.#file);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }
}

const EMPTY: StoredTrust = { version: 1, entries: [] };

/** The store's entries that are well formed; anything else in the file is ignored. */
function parseStore(text: string): StoredTrust {
  const value: unknown = JSON.parse(text);
  const entries = (value as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) return EMPTY;
  return {
    version: 1,
    entries: entries.filter(
      (entry): entry is StoredEntry =>
        typeof entry === 'object' &&
        entry !== null &&
        ['project', 'source', 'subject', 'name', 'hash'].every(
          (field) => typeof (entry as Record<string, unknown>)[field] === 'string',
        ),
    ),
  };
}

/**
 * The hash of a definition's canonical JSON (keys sorted at every level), so reformatting the
 * file does not ask again but any change of a value does.
 */
export function definitionHash(definition: unknown): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function keyOf(request: Omit<TrustRequest, 'definition'>): string {
  return [request.project, request.source, request.subject, request.name].join('\0');
}

function sameKey(request: Omit<TrustRequest, 'definition'>): (entry: StoredEntry) => boolean {
  const key = keyOf(request);
  return (entry) => keyOf(entry) === key;
}

/** The source as the person sees it: relative to the project when inside it. */
function displaySource(request: TrustRequest): string {
  const inside = relative(request.project, request.source);
  return inside !== '' && !inside.startsWith('..') ? inside : request.source;
}

function describe(request: TrustRequest): string {
  return request.subject === 'mcp_server'
    ? `The MCP server "${request.name}" of ${displaySource(request)}`
    : `The hooks for ${request.name} of ${displaySource(request)}`;
}

function refusedDecision(request: TrustRequest): TrustDecision {
  return {
    trusted: false,
    reason: 'rejected',
    message: `${describe(request)} was not trusted, so it does not run. Santra asks again when it restarts or the definition changes.`,
  };
}
