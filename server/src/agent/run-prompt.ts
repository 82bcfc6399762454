/**
 * Serving one `prompt`: pick the session and the model, run the agent, stream its phases, and
 * answer with the outcome — after the last phase. Failures of the model or its provider end the
 * run with status `error` (and an `error` phase saying what to do), never as a protocol fault.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Phase, PromptParams, PromptResult } from '#protocol';
import type { ResolvedConfig } from '../config/config.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { groupDigits } from '../support/numbers.ts';
import { type Redactor, StreamRedactor } from '../support/log.ts';
import { costUsd } from '../providers/catalog.ts';
import { addUsage, EMPTY_USAGE, type StreamFn } from '../providers/stream.ts';
import type { Tool, ToolContextSource } from '../tools/types.ts';
import type { AgentEvent } from './events.ts';
import { compactIfNeeded, noteModelCall } from './auto-compaction.ts';
import { ASSISTANT_AGENT, BUILTIN_AGENTS } from './builtin-agents.ts';
import { type Classification, classifyPrompt, type Route } from './classifier.ts';
import type { AgentDefinition, LoadedAgents } from './custom-agents.ts';
import { userText } from '../providers/messages.ts';
import { interruptedNote } from './user-notes.ts';
import { selectModel } from './model-selection.ts';
import { ANSWER_KEPT, type AgentIdentity, PhaseStream } from './phase-stream.ts';
import { instructionsPrompt, instructionsStatus, type ProjectInstructions } from './project-instructions.ts';
import { fileChangeRecord } from '../sessions/file-changes.ts';
import type { Session, SessionStore } from '../sessions/store.ts';
import { titleOf } from '../sessions/summary.ts';
import { runSwarm, type SwarmSettings } from './swarm.ts';
import { workspaceNote } from './system-prompt.ts';
import { fitText } from './wire-text.ts';

export interface PromptDeps {
  sessions: SessionStore;
  config: ResolvedConfig;
  /** The connection's default model (from initialize or model/set). */
  defaultModel: string | undefined;
  workspaceRoot: string;
  /** Builds the context a tool call executes in (runtime/tool-context.ts). */
  toolContext: ToolContextSource;
  /** Custom agents from the workspace's .agents/ (read for every agent task, so edits apply at once). */
  loadAgents(): Promise<LoadedAgents>;
  /**
   * The user's instruction files (AGENTS.md and the like), read once per run so edits apply to the
   * next prompt. `startDir`: where the user started, when the client says; default the root.
   */
  loadInstructions(startDir?: string): Promise<ProjectInstructions>;
  /** Settings of the user's that do nothing, said at the start of every run until fixed. */
  configWarnings?: readonly string[];
  swarm: SwarmSettings;
  stream: StreamFn;
  tools: readonly Tool[];
  sendPhase(phase: Phase): void;
  /** How long later text and thinking deltas of a turn are held to be merged (textBatchMs). */
  coalesceMs: number;
  /** Cleans what is sent and saved of known secrets (API keys). */
  redactor: Redactor;
}

/** The session a prompt continues (from memory or the store), or a new one; refuses a busy one. */
export async function openSession(sessions: SessionStore, sessionId: string | undefined): Promise<Session> {
  if (sessionId === undefined) return sessions.create();
  const { session } = await sessions.open(sessionId);
  if (session.running !== undefined) {
    throw new ProtocolFault(
      'SessionBusy',
      `Session ${sessionId} is already running a prompt. Wait for it to finish or cancel it first.`,
    );
  }
  return session;
}

export async function runPrompt(
  deps: PromptDeps,
  params: PromptParams,
  signal: AbortSignal,
): Promise<PromptResult> {
  const session = await openSession(deps.sessions, params.sessionId);
  const runId = `run_${randomUUID().slice(0, 8)}`;
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  if (signal.aborted) abort();
  session.running = controller;
  const phases = new PhaseStream({
    runId,
    sessionId: session.id,
    coalesceMs: deps.coalesceMs,
    nextSeq: () => ++session.seq,
    send: (sent) => {
      const phase = session.redact(sent);
      session.record({ type: 'phase', phase });
      deps.sendPhase(phase);
    },
  });
  let rootId: string | undefined;
  const streams = new Map<
    string,
    { agent: AgentIdentity; type: 'text' | 'thinking'; redactor: StreamRedactor }
  >();
  /** Sends what the stream redactors hold back (of one agent, or all): its stream has ended. */
  const flushStreams = (agent?: AgentIdentity) => {
    for (const stream of streams.values()) {
      if (agent !== undefined && stream.agent.agentId !== agent.agentId) continue;
      const held = stream.redactor.flush();
      if (held !== '') phases.emit(stream.agent, { type: stream.type, text: held });
    }
  };
  const emitAs = (agent: AgentIdentity, event: AgentEvent) => {
    if (event.type === 'model_output') {
      const { type: _type, ...output } = event;
      session.record({ type: 'model_output', runId, agentId: agent.agentId, ...output });
      if (agent.agentId === rootId && output.usage !== undefined)
        noteModelCall(session, output.inputMessages, output.usage);
    } else if (event.type === 'message') {
      // The root agent's conversation is the session's; a sub-agent's ends with its run.
      if (agent.agentId === rootId) session.record({ type: 'message', runId, message: event.message });
    } else if (event.type === 'messages_replaced') {
      if (agent.agentId === rootId)
        session.record({ type: 'messages_replaced', runId, messages: event.messages });
    } else if (event.type === 'text' || event.type === 'thinking') {
      // A key the model echoes may be split across deltas: each stream is redacted as a whole.
      const key = `${agent.agentId}\0${event.type}`;
      let stream = streams.get(key);
      if (stream === undefined) {
        stream = { agent, type: event.type, redactor: new StreamRedactor(deps.redactor) };
        streams.set(key, stream);
      }
      const shown = stream.redactor.push(event.text);
      if (shown !== '') phases.emit(agent, { ...event, text: shown });
    } else {
      flushStreams(agent);
      phases.emit(agent, deps.redactor.applyDeep(event));
    }
  };
  try {
    const route: Classification =
      params.agent !== undefined
        ? { route: 'agent_task', reason: `the client asked for the agent ${params.agent}` }
        : params.mode === undefined || params.mode === 'auto'
          ? classifyPrompt(params.text)
          : { route: params.mode, reason: 'chosen by the client' };
    const custom = route.route === 'agent_task' ? await deps.loadAgents() : { agents: [], problems: [] };
    const agents = [...BUILTIN_AGENTS, ...custom.agents];
    const root =
      params.agent === undefined ? rootAgent(route.route) : agents.find((agent) => agent.id === params.agent);
    if (root === undefined) {
      throw new ProtocolFault(
        'InvalidParams',
        `Invalid params for prompt: params.agent: there is no agent "${params.agent}". The agents of this workspace: ${agents.map((agent) => agent.id).join(', ')}.`,
        {
          issues: [{ path: 'params.agent', message: `no agent "${params.agent}"` }],
        },
      );
    }
    const startDir = await startDirectory(deps.workspaceRoot, params.cwd);
    const emit = (event: AgentEvent) => emitAs({ agentId: root.id }, event);
    const ref = params.model ?? session.model ?? deps.defaultModel ?? deps.config.model;
    const selection = selectModel(deps.config, ref);
    if (!selection.ok) {
      emit({ type: 'error', message: selection.message, code: selection.code, retryable: false });
      emit({ type: 'complete', status: 'error', output: '' });
      return {
        runId,
        sessionId: session.id,
        status: 'error',
        output: '',
        usage: EMPTY_USAGE,
        costUsd: 0,
        sessionUsage: session.usage,
        sessionCostUsd: session.costUsd,
      };
    }
    emit({ type: 'status', text: `Route: ${route.route} (${route.reason})` });
    if (selection.model.guessed === true) {
      emit({
        type: 'status',
        level: 'warning',
        text: `${selection.ref} is not in Santra's model list: it is sent to ${selection.endpoint.name} as is, with a guessed context window (${groupDigits(selection.model.contextWindow)} tokens) and no prices, so costs show as $0.`,
      });
    }
    const instructions = await deps.loadInstructions(startDir);
    for (const status of instructionsStatus(instructions)) emit(status);
    const shared = [instructionsPrompt(instructions), workspaceNote(deps.workspaceRoot, startDir)]
      .filter((part) => part !== undefined)
      .join('\n\n');
    for (const warning of deps.configWarnings ?? [])
      emit({ type: 'status', level: 'warning', text: warning });
    for (const problem of custom.problems) {
      emit({
        type: 'status',
        level: 'warning',
        text: `Skipped ${problem.file}${problem.field === undefined ? '' : ` (${problem.field})`}: ${problem.message}`,
      });
    }
    await compactIfNeeded({
      session,
      model: selection.model,
      endpoint: selection.endpoint,
      stream: deps.stream,
      compactAt: deps.config.agent.compactAt,
      maxOutputTokens: deps.config.agent.maxOutputTokens,
      nextPrompt: params.text,
      signal: controller.signal,
      emit,
    });
    rootId = root.id;
    session.record({
      type: 'prompt',
      runId,
      at: new Date().toISOString(),
      text: params.text,
      model: selection.ref,
      ...(params.agent === undefined ? {} : { agent: params.agent }),
      ...(params.mode === undefined ? {} : { mode: params.mode }),
      ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
    });
    if (session.title === '') session.title = titleOf(session.redact(deps.redactor.apply(params.text)));
    const prompt = userText(params.text);
    session.messages.push(prompt);
    session.record({ type: 'message', runId, message: prompt });
    const outcome = await runSwarm(
      {
        sessionId: session.id,
        runId,
        agents,
        tools: deps.tools,
        endpoint: selection.endpoint,
        model: selection.model,
        stream: deps.stream,
        limits: {
          maxToolCallsPerResponse: deps.config.agent.maxToolCallsPerResponse,
          maxTurns: deps.config.agent.maxTurnsPerRun,
          maxOutputTokens: deps.config.agent.maxOutputTokens,
          thinkingBudget: deps.config.agent.thinkingBudgetTokens,
          ...(deps.config.agent.effort === undefined ? {} : { effort: deps.config.agent.effort }),
        },
        settings: deps.swarm,
        signal: controller.signal,
        systemPrompt: (definition) => `${definition.systemPrompt}\n\n${shared}`,
        emit: emitAs,
        toolContext: deps.toolContext,
        approvals: session.approvals,
        recorder: {
          approval: (request, answer) =>
            session.record({
              type: 'approval',
              runId,
              request,
              ...(answer === undefined ? {} : { answer }),
              at: new Date().toISOString(),
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
              at: new Date().toISOString(),
            });
          },
          fileChange: (change, call) => {
            const record = fileChangeRecord(change, {
              runId,
              changeId: `chg_${randomUUID()}`,
              ...call,
              at: new Date().toISOString(),
            });
            // In step with the records: undo reads the live list, a loaded session folds the same.
            session.changes.push(record);
            session.record(record);
          },
        },
      },
      root,
      session.messages,
    );
    if (outcome.status === 'cancelled') {
      // The model is told on its next turn that this one was stopped, not finished.
      const note = interruptedNote(outcome.output !== '');
      session.messages.push(note);
      session.record({ type: 'message', runId, message: note });
    }
    const cost = costUsd(selection.model, outcome.usage);
    session.usage = addUsage(session.usage, outcome.usage);
    session.costUsd += cost;
    session.record({
      type: 'run_end',
      runId,
      status: outcome.status,
      ...(outcome.stopReason === undefined ? {} : { stopReason: outcome.stopReason }),
      model: selection.ref,
      usage: outcome.usage,
      costUsd: cost,
      at: new Date().toISOString(),
    });
    return {
      runId,
      sessionId: session.id,
      status: outcome.status,
      output: session.redact(deps.redactor.apply(fitText(outcome.output, ANSWER_KEPT))),
      ...(outcome.stopReason === undefined ? {} : { stopReason: outcome.stopReason }),
      usage: outcome.usage,
      costUsd: cost,
      sessionUsage: session.usage,
      sessionCostUsd: session.costUsd,
    };
  } finally {
    flushStreams();
    phases.flush();
    signal.removeEventListener('abort', abort);
    session.running = undefined;
  }
}

/** The orchestrator for agent tasks; a tool-less assistant for chat and direct answers. */
function rootAgent(route: Route): AgentDefinition {
  const orchestrator = BUILTIN_AGENTS.find((agent) => agent.id === 'orchestrator');
  if (route === 'agent_task' && orchestrator !== undefined) return orchestrator;
  return ASSISTANT_AGENT;
}

/**
 * The directory the user started in, absolute: the prompt's `cwd` (absolute, or relative to the
 * root) when it is a directory inside the workspace; undefined for the root itself.
 */
async function startDirectory(root: string, cwd: string | undefined): Promise<string | undefined> {
  if (cwd === undefined) return undefined;
  const absolute = resolve(root, cwd);
  const rel = relative(root, absolute);
  const fault = (why: string) =>
    new ProtocolFault('InvalidParams', `Invalid params for prompt: params.cwd: ${why}`, {
      issues: [{ path: 'params.cwd', message: why }],
    });
  if (rel.startsWith('..') || isAbsolute(rel)) throw fault(`${cwd} is outside the workspace ${root}.`);
  const info = await stat(absolute).catch(() => undefined);
  if (info?.isDirectory() !== true) throw fault(`${cwd} is not a directory of the workspace.`);
  return rel === '' ? undefined : absolute;
}
