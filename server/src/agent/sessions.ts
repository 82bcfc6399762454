/**
 * Sessions of this server process: the conversation, the phase counter and the running run of
 * each. They live in memory for now; persistence and resume build on this shape.
 */
import { randomUUID } from 'node:crypto';
import type { Usage } from '#protocol';
import { EMPTY_USAGE } from '../providers/stream.ts';
import { SessionApprovals } from '../approval/gate.ts';
import type { ChatMessage } from '../providers/messages.ts';

export interface Session {
  readonly id: string;
  readonly messages: ChatMessage[];
  /** The last `seq` sent; phases continue from it. */
  seq: number;
  /** `provider/model` chosen with model/set for this session. */
  model?: string;
  /** The abort controller of the run in progress. */
  running?: AbortController;
  usage: Usage;
  costUsd: number;
  /** Approval state: allow_all answered earlier in this session. */
  approvals: SessionApprovals;
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>();

  create(): Session {
    const session: Session = {
      id: `ses_${randomUUID()}`,
      messages: [],
      seq: 0,
      usage: EMPTY_USAGE,
      costUsd: 0,
      approvals: new SessionApprovals(),
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Aborts every run in progress. */
  abortAll(reason: string): void {
    for (const session of this.#sessions.values()) session.running?.abort(new Error(reason));
  }
}
