/**
 * The one mapping from agent events to `phase` notifications. It numbers phases per session
 * (`seq`) and coalesces text and thinking deltas: a delta is held for up to `coalesceMs` and
 * merged with the ones that follow, so a fast model does not become a message per token, while
 * the first delta of each model turn goes out at once. Any other phase flushes what is held
 * first, so order is preserved.
 */
import type { Phase } from '#protocol';
import type { AgentEvent } from './events.ts';

export interface AgentIdentity {
  agentId: string;
  parentAgentId?: string;
  agentRole?: string;
}

export interface PhaseStreamOptions {
  runId: string;
  sessionId: string;
  coalesceMs: number;
  /** Returns the session's next sequence number. */
  nextSeq(): number;
  send(phase: Phase): void;
}

interface Held {
  agent: AgentIdentity;
  type: 'text' | 'thinking';
  text: string;
}

export class PhaseStream {
  readonly #options: PhaseStreamOptions;
  #held: Held | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Agents whose next delta starts a turn and is sent at once. */
  readonly #turnStarting = new Set<string>();

  constructor(options: PhaseStreamOptions) {
    this.#options = options;
  }

  emit(agent: AgentIdentity, event: AgentEvent): void {
    switch (event.type) {
      case 'turn_start':
        this.#turnStarting.add(agent.agentId);
        return;
      case 'text':
      case 'thinking':
        this.#delta(agent, event.type, event.text);
        return;
      case 'status':
      case 'section':
      case 'tool_call':
      case 'tool_result':
      case 'error':
      case 'complete': {
        this.flush();
        const { type: _type, ...fields } = event;
        this.#send(agent, { type: event.type, ...fields } as PhaseBody);
        return;
      }
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown agent event ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /** Sends whatever delta is held. Call before answering the prompt. */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && held.text !== '') this.#send(held.agent, { type: held.type, text: held.text });
  }

  #delta(agent: AgentIdentity, type: 'text' | 'thinking', text: string): void {
    if (text === '') return;
    const held = this.#held;
    if (held !== undefined && held.agent.agentId === agent.agentId && held.type === type) {
      held.text += text;
      return;
    }
    this.flush();
    if (this.#turnStarting.delete(agent.agentId) || this.#options.coalesceMs <= 0) {
      this.#send(agent, { type, text });
      return;
    }
    this.#held = { agent, type, text };
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, this.#options.coalesceMs);
  }

  #send(agent: AgentIdentity, body: PhaseBody): void {
    this.#options.send({
      runId: this.#options.runId,
      sessionId: this.#options.sessionId,
      agentId: agent.agentId,
      ...(agent.parentAgentId === undefined ? {} : { parentAgentId: agent.parentAgentId }),
      ...(agent.agentRole === undefined ? {} : { agentRole: agent.agentRole }),
      seq: this.#options.nextSeq(),
      ...body,
    });
  }
}

type PhaseBody = DistributiveOmit<
  Phase,
  'runId' | 'sessionId' | 'agentId' | 'parentAgentId' | 'agentRole' | 'seq'
>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
