/**
 * Tool-call identity. A provider's id cannot identify a call: OpenAI-compatible servers number
 * calls per response (`call_0` in every response), give two calls of one response the same id,
 * send an empty id or none, and two agents of one swarm each legitimately have their own
 * `call_0`. So the runtime names each call itself:
 *
 * - Its identity (`CallKey`: agent, response, index) is what the run uses to execute a call at
 *   most once. It never depends on what the provider sent.
 * - Its id — in phases, approvals, and the conversation sent back to the provider — is the
 *   provider's id when that is usable, and otherwise a fresh one. Usable means non-empty, within
 *   the character set and length the wire API that made it accepts, and not used before in this
 *   run (by any agent) or in the agent's history. The replacement is written into the history on both sides
 *   (the call and its result), so the conversation the provider sees stays consistent.
 */
import type { AssistantBlock, ChatMessage, ToolCallBlock } from '../providers/messages.ts';
import { TOOL_CALL_ID } from '../providers/tool-call-id.ts';
import type { WireApi } from '../providers/types.ts';

/** Who made a call: the agent, its n-th model response in this run, and the call's position in it. */
export type CallKey = `${string}#${number}#${number}`;

export function callKey(agentId: string, response: number, index: number): CallKey {
  return `${agentId}#${response}#${index}`;
}

/*
 * Usable ids are those the API that made them takes back (providers/tool-call-id.ts). Generated
 * ids are nine letters and digits (`call00001`), which also satisfies the strictest endpoints
 * (Mistral).
 */

/** The tool calls of one run, shared by every agent of the run: the ids handed out and the calls executed. */
export class RunToolCalls {
  readonly #used = new Set<string>();
  readonly #executed = new Set<CallKey>();
  #next = 1;

  /** True the first time a call is claimed for execution; a call runs at most once. */
  claim(key: CallKey): boolean {
    if (this.#executed.has(key)) return false;
    this.#executed.add(key);
    return true;
  }

  /** Marks the ids of an agent's existing history as taken (a resumed session's calls). */
  reserveHistory(messages: readonly ChatMessage[]): void {
    for (const message of messages)
      for (const block of message.content) {
        if (block.type === 'tool_call') this.#used.add(block.id);
        else if (block.type === 'tool_result') this.#used.add(block.toolCallId);
      }
  }

  /**
   * Gives every tool call of one model response an id no other call of the run or the history
   * has, keeping the provider's where it is usable. Returns the content with calls renamed.
   */
  assign(content: readonly AssistantBlock[], api: WireApi): AssistantBlock[] {
    const usable = TOOL_CALL_ID[api];
    return content.map((block) => {
      if (block.type !== 'tool_call') return block;
      const id = usable.test(block.id) && !this.#used.has(block.id) ? block.id : this.#fresh();
      this.#used.add(id);
      return id === block.id ? block : ({ ...block, id } satisfies ToolCallBlock);
    });
  }

  #fresh(): string {
    for (;;) {
      const id = `call${String(this.#next++).padStart(5, '0')}`;
      if (!this.#used.has(id)) return id;
    }
  }
}
