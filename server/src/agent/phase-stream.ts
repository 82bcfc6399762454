/**
 * The one mapping from agent events to `phase` notifications. It numbers phases per session
 * (`seq`) and coalesces text and thinking deltas: a delta is held for up to `coalesceMs` and
 * merged with the ones that follow, so a fast model does not become a message per token, while
 * the first delta of each model turn goes out at once. Any other phase flushes what is held
 * first, so order is preserved.
 */
import type { Phase } from '#protocol';
import type { AgentEvent } from './events.ts';
import { fitArgs, fitText } from './wire-text.ts';

/** Held deltas are sent once they reach this size, whatever the coalescing window. */
const MAX_HELD_CHARS = 64 * 1024;

/** Where an answer cut for the wire can be read whole. */
export const ANSWER_KEPT = 'the text phases carried it whole and the session keeps it';

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
        this.flush();
        this.#send(agent, { ...event, text: fitText(event.text, 'the model wrote it whole') });
        return;
      case 'section':
        this.flush();
        this.#send(agent, { ...event, title: fitText(event.title, 'the agent was given it whole') });
        return;
      case 'tool_call':
        this.flush();
        this.#send(agent, { ...event, args: fitArgs(event.args) });
        return;
      case 'tool_result':
        this.flush();
        this.#send(agent, { ...event, output: fitText(event.output, 'the model read it whole') });
        return;
      case 'error':
        this.flush();
        this.#send(agent, { ...event, message: fitText(event.message, 'the server log has it whole') });
        return;
      case 'usage':
        this.flush();
        this.#send(agent, { type: 'usage', ...event.spend });
        return;
      case 'complete': {
        this.flush();
        const { spend, ...complete } = event;
        this.#send(agent, { ...complete, ...spend, output: fitText(event.output, ANSWER_KEPT) });
        return;
      }
      case 'message':
      case 'messages_replaced':
      case 'model_output':
        // For the session's record, not the client.
        return;
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
      // A fast stream must not build one huge phase while the timer runs.
      if (held.text.length >= MAX_HELD_CHARS) this.flush();
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
