/**
 * Where one run's agent events go: into the session's records (the root agent's conversation is
 * the session's) and out as phases, with known secrets held back across text deltas so a key the
 * model echoes in pieces is never sent whole or in part.
 */
import { randomUUID } from 'node:crypto';
import type { Phase } from '#protocol';
import { type Redactor, StreamRedactor } from '../support/log.ts';
import type { ToolCallRecorder } from '../tools/types.ts';
import { fileChangeRecord } from '../sessions/file-changes.ts';
import type { Session } from '../sessions/store.ts';
import type { AgentEvent } from './events.ts';
import { noteModelCall } from './auto-compaction.ts';
import { type AgentIdentity, PhaseStream } from './phase-stream.ts';

export interface RunEventsOptions {
  session: Session;
  runId: string;
  /** How long later text and thinking deltas of a turn are held to be merged. */
  coalesceMs: number;
  sendPhase(phase: Phase): void;
  redactor: Redactor;
}

interface HeldStream {
  agent: AgentIdentity;
  type: 'text' | 'thinking';
  redactor: StreamRedactor;
}

export class RunEvents {
  /** The agent whose conversation is the session's; set once the run's root agent starts. */
  rootId: string | undefined;
  readonly #options: RunEventsOptions;
  readonly #phases: PhaseStream;
  readonly #streams = new Map<string, HeldStream>();

  constructor(options: RunEventsOptions) {
    this.#options = options;
    const { session } = options;
    this.#phases = new PhaseStream({
      runId: options.runId,
      sessionId: session.id,
      coalesceMs: options.coalesceMs,
      nextSeq: () => ++session.seq,
      send: (sent) => {
        const phase = session.redact(sent);
        session.record({ type: 'phase', phase });
        options.sendPhase(phase);
      },
    });
  }

  /** Records and sends what `agent` did. */
  readonly emitAs = (agent: AgentIdentity, event: AgentEvent): void => {
    const { session, runId, redactor } = this.#options;
    const isRoot = agent.agentId === this.rootId;
    if (event.type === 'model_output') {
      const { type: _type, ...output } = event;
      session.record({ type: 'model_output', runId, agentId: agent.agentId, ...output });
      if (isRoot && output.usage !== undefined) noteModelCall(session, output.inputMessages, output.usage);
    } else if (event.type === 'message') {
      // A sub-agent's conversation ends with its run.
      if (isRoot) session.record({ type: 'message', runId, message: event.message });
    } else if (event.type === 'messages_replaced') {
      if (isRoot) session.record({ type: 'messages_replaced', runId, messages: event.messages });
    } else if (event.type === 'text' || event.type === 'thinking') {
      const shown = this.#held(agent, event.type).redactor.push(event.text);
      if (shown !== '') this.#phases.emit(agent, { ...event, text: shown });
    } else {
      this.#release(agent);
      this.#phases.emit(agent, redactor.applyDeep(event));
    }
  };

  /** Sends everything held back: the run has ended. */
  close(): void {
    this.#release();
    this.#phases.flush();
  }

  /** What the run's tool calls leave in the session: approvals, questions, file changes. */
  recorder(): ToolCallRecorder {
    const { session, runId } = this.#options;
    const at = () => new Date().toISOString();
    return {
      approval: (request, answer) =>
        session.record({
          type: 'approval',
          runId,
          request,
          ...(answer === undefined ? {} : { answer }),
          at: at(),
        }),
      question: (question, agentId, answer) => {
        if (question.secret === true && answer !== undefined) session.addSecret(answer);
        session.record({
          type: 'ask',
          runId,
          agentId,
          prompt: question.prompt,
          secret: question.secret === true,
          // A secret answer is never written anywhere.
          ...(answer === undefined || question.secret === true ? {} : { answer }),
          at: at(),
        });
      },
      fileChange: (change, call) => {
        const record = fileChangeRecord(change, {
          runId,
          changeId: `chg_${randomUUID()}`,
          ...call,
          at: at(),
        });
        // In step with the records: undo reads the live list, a loaded session folds the same.
        session.changes.push(record);
        session.record(record);
      },
    };
  }

  /** One redactor per agent and stream: a key split across deltas is redacted as a whole. */
  #held(agent: AgentIdentity, type: 'text' | 'thinking'): HeldStream {
    const key = `${agent.agentId}\0${type}`;
    let stream = this.#streams.get(key);
    if (stream === undefined) {
      stream = { agent, type, redactor: new StreamRedactor(this.#options.redactor) };
      this.#streams.set(key, stream);
    }
    return stream;
  }

  /** Sends what the redactors hold back (of one agent, or all): its stream has ended. */
  #release(agent?: AgentIdentity): void {
    for (const stream of this.#streams.values()) {
      if (agent !== undefined && stream.agent.agentId !== agent.agentId) continue;
      const held = stream.redactor.flush();
      if (held !== '') this.#phases.emit(stream.agent, { type: stream.type, text: held });
    }
  }
}
