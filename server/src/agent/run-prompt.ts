/**
 * Serving one `prompt`: pick the session and the model, run the agent, stream its phases, and
 * answer with the outcome — after the last phase. Failures of the model or its provider end the
 * run with status `error` (and an `error` phase saying what to do), never as a protocol fault.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { AskParams, Phase, PromptParams, PromptResult } from '#protocol';
import type { ResolvedConfig } from '../config/config.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { groupDigits } from '../support/numbers.ts';
import type { Redactor } from '../support/log.ts';
import { promptCacheKey } from '../providers/cache-plan.ts';
import { costUsd } from '../providers/catalog.ts';
import { inputTokensHigh } from '../providers/request-size.ts';
import type { ChatMessage, UserBlock } from '../providers/messages.ts';
import { addUsage, cacheHitRatio, EMPTY_USAGE, type StreamFn } from '../providers/stream.ts';
import type { ModelSpec } from '../providers/types.ts';
import type { Tool, ToolContextSource } from '../tools/types.ts';
import { hold, openIdleSession } from '../sessions/occupancy.ts';
import { COMPACTION_AGENT } from '../sessions/records.ts';
import type { Session, SessionStore } from '../sessions/store.ts';
import { titleOf } from '../sessions/summary.ts';
import { eventBody, settleEvents, takeEvents } from '../sessions/events.ts';
import type { AgentEvent } from './events.ts';
import { compactIfNeeded, reportedInput } from './auto-compaction.ts';
import { ASSISTANT_AGENT, BUILTIN_AGENTS } from './builtin-agents.ts';
import { type Classification, classifyPrompt, type Route } from './classifier.ts';
import type { SpendLedger } from './budget-ledger.ts';
import type { AgentDefinition, LoadedAgents } from './custom-agents.ts';
import type { AgentLimits } from './agent-run.ts';
import { toolDefinitions } from './loop.ts';
import { selectModel } from './model-selection.ts';
import { type FallbackChain, fallbackChain, type ModelChoice } from './fallback.ts';
import { ANSWER_KEPT } from './phase-stream.ts';
import { checkContextPaths, describeContext } from './prompt-context.ts';
import {
  instructionsPrompt,
  instructionsStatus,
  nestedInstructionsText,
  type ProjectInstructions,
} from './project-instructions.ts';
import { budgetUnenforceable, runLedger } from './run-budget.ts';
import { RunEvents } from './run-events.ts';
import { type ConversationPrefix, rememberedPrefix, rememberPrefix } from './summary-request.ts';
import { runSwarm, type SwarmOutcome, type SwarmSettings } from './swarm.ts';
import { environmentNote, workspaceNote } from './system-prompt.ts';
import { interruptedNote } from './user-notes.ts';
import { modeNote } from '../approval/permission-mode.ts';
import { agentHooks } from '../hooks/agent-hooks.ts';
import type { Hooks } from '../hooks/hooks.ts';
import {
  preCompactHooks,
  promptHooks,
  type SessionLifecycle,
  sessionStartHooks,
} from '../hooks/session-hooks.ts';
import { fitText } from './wire-text.ts';
import { listsTool } from './tool-names.ts';
import { LOAD_SKILL_TOOL } from '../tools/load-skill.ts';

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
  /**
   * Puts a question to the user and resolves with the answer: how a spent budget asks to be raised.
   * Absent when the client does not answer questions: a spent budget then stops the run.
   */
  ask?: (params: AskParams, signal: AbortSignal) => Promise<string>;
  /** The user's hooks (hooks/); absent: none run. */
  hooks?: Hooks;
  /** The sessions begun in this server, whose SessionStart has run (hooks/session-hooks.ts). */
  lifecycle: SessionLifecycle;
  /**
   * The skills' section of the system prompt for a model of that context (skills/listing.ts), for
   * agents that may call load_skill, and status lines about skipped skill files; absent: none.
   */
  skills?: (contextWindow: number) => { listing: string | undefined; status: string[] };
  /** The memory files (memory/): the note on the prompt's message, and what was remembered since the last run. */
  memory?: {
    note(messages: readonly ChatMessage[]): Promise<string | undefined>;
    takeAdded(): string[];
  };
}

export async function runPrompt(
  deps: PromptDeps,
  params: PromptParams,
  signal: AbortSignal,
): Promise<PromptResult> {
  const session = await openIdleSession(deps.sessions, params.sessionId);
  // The mode is the session's: a prompt that names one sets it from now on (§7.8).
  session.approvals.permissionMode =
    params.permissionMode ?? session.approvals.permissionMode ?? deps.config.permissionMode;
  const runId = `run_${randomUUID().slice(0, 8)}`;
  const held = hold(session, signal, { runId });
  const events = new RunEvents({
    session,
    runId,
    coalesceMs: deps.coalesceMs,
    sendPhase: (phase) => deps.sendPhase(phase),
    redactor: deps.redactor,
  });
  try {
    const { route, agents, root, problems } = await chooseAgents(deps, params);
    const startDir = await startDirectory(deps.workspaceRoot, params.cwd);
    // The editor's context, read as read_file reads in a tool context of its own (only when sent).
    const editor =
      params.context === undefined
        ? undefined
        : {
            context: params.context,
            tools: deps.toolContext({
              sessionId: session.id,
              runId,
              agentId: root.id,
              call: { id: 'prompt_context', name: 'read_file' },
              signal: held.signal,
              approvals: session.approvals,
              emit: () => {},
            }),
          };
    if (editor !== undefined) await checkContextPaths(editor.context, editor.tools);
    const emit = (event: AgentEvent) => events.emitAs({ agentId: root.id }, event);
    const ref = params.model ?? session.model ?? deps.defaultModel ?? deps.config.model;
    const selection = selectModel(deps.config, ref);
    if (!selection.ok) return modelUnavailable(session, runId, selection, emit);
    // SessionStart and UserPromptSubmit hooks, before anything of the prompt reaches a model.
    const hooked =
      deps.hooks === undefined
        ? { context: [] }
        : await promptHooks(
            deps.hooks,
            params.text,
            hookScope(deps, session, held.signal, emit),
            deps.lifecycle,
          );
    if ('blocked' in hooked) return promptBlocked(session, runId, hooked.blocked, emit);
    const hookContext = hooked.context;
    emit({ type: 'status', text: `Route: ${route.route} (${route.reason})` });
    const instructions = await deps.loadInstructions(startDir);
    announce(deps, params, selection, instructions, problems, emit);
    const fallback = runFallback(deps, params, selection, emit);
    // The system prompt says nothing that changes from prompt to prompt (system-prompt.ts).
    const shared = [instructionsPrompt(instructions), workspaceNote(deps.workspaceRoot)]
      .filter((part) => part !== undefined)
      .join('\n\n');
    // The skills' listing changes only when a skill does, so it may end the cached system prompt.
    const skills = deps.skills?.(selection.model.contextWindow);
    for (const text of [...(deps.memory?.takeAdded() ?? []), ...(skills?.status ?? [])])
      emit({ type: 'status', text });
    const systemPrompt = (definition: AgentDefinition) =>
      skills?.listing !== undefined && listsTool(definition.toolNames, LOAD_SKILL_TOOL)
        ? `${definition.systemPrompt}\n\n${shared}\n\n${skills.listing}`
        : `${definition.systemPrompt}\n\n${shared}`;
    const ledger = promptLedger(deps, params, session, runId, selection.model, emit);
    const prefix = rootPrefix(deps, session.id, selection.model, root, systemPrompt(root));
    // A compaction is made on the model the run starts on: a fallback while the model cools down.
    const compactOn = fallback?.pick() ?? selection;
    await compactIfNeeded({
      session,
      model: compactOn.model,
      endpoint: compactOn.endpoint,
      stream: deps.stream,
      compactAt: deps.config.agent.compactAt,
      maxOutputTokens: deps.config.agent.maxOutputTokens,
      nextPrompt: params.text,
      signal: held.signal,
      emit,
      // The summary is asked inside the conversation, as its last requests sent it (summary-request.ts).
      prefix: rememberedPrefix(session, compactOn.model) ?? prefix,
      budget: ledger.account(COMPACTION_AGENT, { sessionOnly: true }),
      ...(deps.hooks === undefined
        ? {}
        : {
            beforeCompact: () =>
              preCompactHooks(deps.hooks as Hooks, 'auto', '', hookScope(deps, session, held.signal, emit)),
            // What SessionStart (`compact`) adds goes with this prompt, the first after the summary.
            afterCompact: async () => {
              const added = await sessionStartHooks(
                deps.hooks as Hooks,
                'compact',
                hookScope(deps, session, held.signal, emit),
              );
              if (added !== undefined) hookContext.push(added);
            },
          }),
    });
    rememberPrefix(session, prefix);
    // The root's first call is reserved from what the provider counted of the conversation so far
    // (plus this root's system prompt and tools once more: the last call may have been another agent's).
    const counted = reportedInput(session);
    const margin = inputTokensHigh({ system: prefix.system, tools: prefix.tools, messages: [] });
    ledger.account(
      root.id,
      counted === undefined ? {} : { lastInput: { ...counted, tokens: counted.tokens + margin } },
    );
    events.rootId = root.id;
    const context = editor === undefined ? undefined : await describeContext(editor.context, editor.tools);
    const note = environmentNote(
      session.messages,
      startDir,
      new Date(),
      nestedInstructionsText(instructions),
    );
    // What is remembered goes on the message, after the cached prefix (memory/note.ts).
    const memory = await deps.memory?.note(session.messages);
    startConversation(session, runId, params, selection.ref, deps.redactor, context, note, [
      ...(memory === undefined ? [] : [memory]),
      ...hookContext,
    ]);
    const outcome = await runSwarm(
      {
        sessionId: session.id,
        runId,
        agents,
        tools: deps.tools,
        endpoint: selection.endpoint,
        model: selection.model,
        stream: deps.stream,
        limits: swarmLimits(deps.config),
        settings: deps.swarm,
        signal: held.signal,
        systemPrompt,
        emit: events.emitAs,
        toolContext: deps.toolContext,
        approvals: session.approvals,
        recorder: events.recorder(),
        ledger,
        events: () => takeEvents(session),
        ...(fallback === undefined ? {} : { fallback }),
        ...(deps.hooks === undefined
          ? {}
          : {
              hooks: (agent) =>
                agentHooks(deps.hooks as Hooks, {
                  ...agent,
                  sessionId: session.id,
                  runId,
                  transcriptPath: deps.sessions.storage.pathOf?.(session.id) ?? '',
                  permissionMode: () => session.approvals.mode,
                }),
            }),
      },
      root,
      session.messages,
    );
    return endRun(session, runId, selection, outcome, deps.redactor, ledger);
  } finally {
    events.close();
    // Events the run did not read go into the conversation, for the next prompt.
    settleEvents(session, runId);
    held.release();
  }
}

/** What session hooks need of this prompt: the session, its file, its mode, where to warn. */
function hookScope(
  deps: PromptDeps,
  session: Session,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
) {
  return {
    session,
    transcriptPath: deps.sessions.storage.pathOf?.(session.id) ?? '',
    permissionMode: session.approvals.mode,
    signal,
    warn: (text: string) => emit({ type: 'status', level: 'warning', text }),
  };
}

/** A prompt a UserPromptSubmit hook blocked: nothing of it reached a model or the conversation. */
function promptBlocked(
  session: Session,
  runId: string,
  reason: string,
  emit: (event: AgentEvent) => void,
): PromptResult {
  return {
    ...endedAtOnce(session, runId, `A UserPromptSubmit hook blocked this prompt: ${reason}`, 'hook', emit),
    permissionMode: session.approvals.mode,
  };
}

/** A run whose model cannot be used: it ends at once, saying why. */
function modelUnavailable(
  session: Session,
  runId: string,
  selection: { message: string; code: 'model_unavailable' | 'auth' },
  emit: (event: AgentEvent) => void,
): PromptResult {
  return endedAtOnce(session, runId, selection.message, selection.code, emit);
}

/** A run that ends before any model call: its error and complete phases, and its result. */
function endedAtOnce(
  session: Session,
  runId: string,
  message: string,
  code: 'hook' | 'model_unavailable' | 'auth',
  emit: (event: AgentEvent) => void,
): PromptResult {
  emit({ type: 'error', message, code, retryable: false });
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

/** The status lines a run starts with: what the user should know about the model, files and agents. */
function announce(
  deps: PromptDeps,
  params: PromptParams,
  selection: { ref: string; model: ModelSpec; endpoint: { name: string } },
  instructions: ProjectInstructions,
  problems: LoadedAgents['problems'],
  emit: (event: AgentEvent) => void,
): void {
  const warn = (text: string) => emit({ type: 'status', level: 'warning', text });
  if (selection.model.guessed === true)
    warn(
      `${selection.ref} is not in Santra's model list: it is sent to ${selection.endpoint.name} as is, with a guessed context window (${groupDigits(selection.model.contextWindow)} tokens) and no prices, so costs show as $0.`,
    );
  for (const status of instructionsStatus(instructions)) emit(status);
  for (const warning of deps.configWarnings ?? []) warn(warning);
  for (const problem of problems)
    warn(
      `Skipped ${problem.file}${problem.field === undefined ? '' : ` (${problem.field})`}: ${problem.message}`,
    );
  const limit = params.maxBudgetUsd === undefined ? {} : { promptLimitUsd: params.maxBudgetUsd };
  if (budgetUnenforceable({ model: selection.model, budget: deps.config.budget, ...limit }))
    warn(
      `A budget is set, but ${selection.ref} has no prices in Santra's model list: its calls count as $0, so the budget cannot stop them.`,
    );
}

/**
 * The run's model fallback chain (fallback.ts): the prompt's list, else the config's; undefined
 * when there is nothing to fall back to. A listed model that cannot be used is said at once.
 */
function runFallback(
  deps: PromptDeps,
  params: PromptParams,
  selection: ModelChoice,
  emit: (event: AgentEvent) => void,
): FallbackChain | undefined {
  const refs = params.fallbackModels ?? deps.config.fallbackModels ?? [];
  if (refs.length === 0) return undefined;
  const { chain, skipped } = fallbackChain(deps.config, selection, refs);
  for (const text of skipped) emit({ type: 'status', level: 'warning', text });
  return chain.hasFallbacks ? chain : undefined;
}

/** The run's spend ledger: the prompt's or the config's budgets, asked about through the client. */
function promptLedger(
  deps: PromptDeps,
  params: PromptParams,
  session: Session,
  runId: string,
  model: ModelSpec,
  emit: (event: AgentEvent) => void,
): SpendLedger {
  return runLedger({
    model,
    ...(params.maxBudgetUsd === undefined ? {} : { promptLimitUsd: params.maxBudgetUsd }),
    budget: deps.config.budget,
    configFile: deps.config.file,
    sessionSpentUsd: session.costUsd,
    sessionId: session.id,
    runId,
    ...(deps.ask === undefined ? {} : { ask: recordedAsk(deps.ask, session, runId) }),
    say: (text) => emit({ type: 'status', level: 'warning', text }),
  });
}

/** Asks through the client and keeps the question with its answer in the session, as a tool's are. */
function recordedAsk(
  ask: NonNullable<PromptDeps['ask']>,
  session: Session,
  runId: string,
): NonNullable<PromptDeps['ask']> {
  return async (params, signal) => {
    let answer: string | undefined;
    try {
      answer = await ask(params, signal);
      return answer;
    } finally {
      session.record({
        type: 'ask',
        runId,
        agentId: params.agentId,
        prompt: params.prompt,
        secret: false,
        ...(answer === undefined ? {} : { answer }),
        at: new Date().toISOString(),
      });
    }
  };
}

/** What the root agent's requests share besides their messages (for a compaction to reuse). */
function rootPrefix(
  deps: PromptDeps,
  sessionId: string,
  model: ModelSpec,
  root: AgentDefinition,
  system: string,
): ConversationPrefix {
  const { thinkingBudget, effort } = swarmLimits(deps.config);
  return {
    modelId: model.id,
    system,
    tools: toolDefinitions(
      deps.tools.filter((tool) => listsTool(root.toolNames, tool.name) && tool.deferred?.() !== true),
    ),
    ...(thinkingBudget > 0 ? { thinkingBudget } : {}),
    ...(effort === undefined ? {} : { effort }),
    cache: { key: promptCacheKey(sessionId, root.id) },
  };
}

/** The route of a prompt's text; a turn an event started goes by what the event says, not its frame. */
function classifyText(text: string): Classification {
  const event = eventBody(text);
  if (event === undefined) return classifyPrompt(text);
  const { route, reason } = classifyPrompt(event.body);
  return { route, reason: `an event from ${event.source}: ${reason}` };
}

/** How the prompt is routed, the agents it may use, and the one it starts with. */
async function chooseAgents(
  deps: PromptDeps,
  params: PromptParams,
): Promise<
  { route: Classification; agents: AgentDefinition[]; root: AgentDefinition } & Pick<LoadedAgents, 'problems'>
> {
  const route: Classification =
    params.agent !== undefined
      ? { route: 'agent_task', reason: `the client asked for the agent ${params.agent}` }
      : params.mode === undefined || params.mode === 'auto'
        ? classifyText(params.text)
        : { route: params.mode, reason: 'chosen by the client' };
  const custom = route.route === 'agent_task' ? await deps.loadAgents() : { agents: [], problems: [] };
  const agents = [...BUILTIN_AGENTS, ...custom.agents];
  const root =
    params.agent === undefined ? rootAgent(route.route) : agents.find((agent) => agent.id === params.agent);
  if (root === undefined) {
    throw new ProtocolFault(
      'InvalidParams',
      `Invalid params for prompt: params.agent: there is no agent "${params.agent}". The agents of this workspace: ${agents.map((agent) => agent.id).join(', ')}.`,
      { issues: [{ path: 'params.agent', message: `no agent "${params.agent}"` }] },
    );
  }
  return { route, agents, root, problems: custom.problems };
}

/** The user's prompt joins the session's conversation (and names a new session). */
function startConversation(
  session: Session,
  runId: string,
  params: PromptParams,
  model: string,
  redactor: Redactor,
  /** The editor's context in words (prompt-context.ts), below what the person typed. */
  context: string | undefined,
  /** When and from where the user writes, when the conversation does not say it yet (system-prompt.ts). */
  note: string | undefined,
  /** What SessionStart and UserPromptSubmit hooks added for the model. */
  hookContext: readonly string[] = [],
): void {
  session.record({
    type: 'prompt',
    runId,
    at: new Date().toISOString(),
    text: params.text,
    model,
    ...(params.agent === undefined ? {} : { agent: params.agent }),
    ...(params.mode === undefined ? {} : { mode: params.mode }),
    ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
    ...(params.context === undefined ? {} : { context: params.context }),
  });
  if (session.title === '') session.title = titleOf(session.redact(redactor.apply(params.text)));
  const content: UserBlock[] = [
    { type: 'text', text: context === undefined ? params.text : `${params.text}\n\n${context}` },
  ];
  if (note !== undefined) content.push({ type: 'text', text: note });
  // The model is told its mode where it reads the task; the gate enforces it whatever it does.
  const mode = modeNote(session.approvals.mode);
  if (mode !== undefined) content.push({ type: 'text', text: mode });
  for (const text of hookContext) content.push({ type: 'text', text });
  const prompt: ChatMessage = { role: 'user', content };
  session.messages.push(prompt);
  session.record({ type: 'message', runId, message: prompt });
}

function swarmLimits(config: ResolvedConfig): AgentLimits {
  const { agent } = config;
  return {
    maxToolCallsPerResponse: agent.maxToolCallsPerResponse,
    maxTurns: agent.maxTurnsPerRun,
    maxOutputTokens: agent.maxOutputTokens,
    thinkingBudget: agent.thinkingBudgetTokens,
    ...(agent.effort === undefined ? {} : { effort: agent.effort }),
  };
}

/** The run's outcome, counted into the session, recorded, and answered. */
function endRun(
  session: Session,
  runId: string,
  selection: { ref: string; model: ModelSpec },
  outcome: SwarmOutcome,
  redactor: Redactor,
  ledger: SpendLedger,
): PromptResult {
  if (outcome.status === 'cancelled') {
    // The model is told on its next turn that this one was stopped, not finished.
    const note = interruptedNote(outcome.output !== '');
    session.messages.push(note);
    session.record({ type: 'message', runId, message: note });
  }
  // Each call at its own model's prices (a fallback model's may differ): the ledger priced them.
  const byModel = ledger.byModel;
  const fellBack = byModel.some((share) => share.model !== selection.ref);
  const cost = fellBack ? ledger.runCostUsd : costUsd(selection.model, outcome.usage);
  session.usage = addUsage(session.usage, outcome.usage);
  session.costUsd += cost;
  const stopReason = outcome.stopReason === undefined ? {} : { stopReason: outcome.stopReason };
  session.record({
    type: 'run_end',
    runId,
    status: outcome.status,
    ...stopReason,
    model: selection.ref,
    usage: outcome.usage,
    costUsd: cost,
    at: new Date().toISOString(),
  });
  const ratio = cacheHitRatio(outcome.usage);
  const sessionRatio = cacheHitRatio(session.usage);
  const budget = ledger.status();
  return {
    runId,
    sessionId: session.id,
    status: outcome.status,
    output: session.redact(redactor.apply(fitText(outcome.output, ANSWER_KEPT))),
    ...stopReason,
    usage: outcome.usage,
    costUsd: cost,
    sessionUsage: session.usage,
    sessionCostUsd: session.costUsd,
    ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
    ...(sessionRatio === undefined ? {} : { sessionCacheHitRatio: sessionRatio }),
    ...(budget === undefined ? {} : { budget }),
    permissionMode: session.approvals.mode,
    ...(fellBack ? { modelUsage: byModel } : {}),
  };
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
