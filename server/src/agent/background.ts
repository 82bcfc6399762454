/**
 * Background sub-agents: `spawn_agent` with `background: true` starts an agent and returns its id
 * at once; its parent goes on working and, through the background tools (tools/agent-background.ts),
 * looks at it (agent_status), steers it (agent_steer: the guidance reaches it as a user message
 * before its next model call), collects its result or its partial output (agent_collect), gives a
 * finished one new instructions (agent_resume) or stops it (agent_cancel).
 *
 * They are agents of the swarm like any other — the same runAgent, so the same approvals,
 * permission mode, hooks and spend ledger — started with their parent's identity as parent, so
 * the phases show them as a branch of the tree while they run. One table per run, here; the
 * swarm wires it in.
 *
 * A parent may not end while agents it started still run: the first time it tries, it is sent
 * back to work and told which still run (collect them, or cancel them). Trying to end again while
 * the same agents run is the parent saying so: they are cancelled, and a warning says which and
 * why. Whatever is still running when the run itself ends (cancelled, out of turns, failed) is
 * cancelled with it; the user sees each one's `complete` phase with status `cancelled`.
 */
import type { RunStatus } from '#protocol';
import type { SpawnRequest, ToolResult } from '../tools/types.ts';
import type { ChatMessage } from '../providers/messages.ts';
import type { AgentEvent } from './events.ts';
import type { AgentIdentity } from './phase-stream.ts';

/** What an agent's loop reads between turns (loop.ts `AgentRun.inbox`). */
export interface AgentInbox {
  /** Guidance sent to the agent since its last turn, each as the text of a user message. */
  take(): string[];
  /**
   * Why the agent may not end yet, as the text of a user message sending it back to work
   * (guidance arrived while it wrote its answer; agents it started still run), or undefined.
   */
  holdFinish(): string | undefined;
}

/** How a background agent's run ended (the swarm runs it: timeout, failures). */
export interface BackgroundOutcome {
  status: RunStatus;
  output: string;
}

/**
 * Starts the agent's run on `history` (which the loop appends to), stopped by `signal`; `round`
 * counts its runs (0 the first, 1 after the first agent_resume…). The swarm gives it this table's
 * inbox for it, as every agent of the run has.
 */
export type BackgroundLaunch = (
  history: ChatMessage[],
  signal: AbortSignal,
  round: number,
) => Promise<BackgroundOutcome>;

/** Characters of a running agent's latest text kept for agent_collect and agent_status. */
const PARTIAL_CHARS = 4000;

interface Entry {
  identity: AgentIdentity & { parentAgentId: string };
  name: string;
  task: string;
  history: ChatMessage[];
  launch: BackgroundLaunch;
  status: RunStatus | 'running';
  output: string;
  /** The text it has written in its current run, and its last tool call or status line. */
  partial: string;
  activity: string;
  startedAt: number;
  endedAt?: number;
  controller: AbortController;
  done: Promise<void>;
  /** Its result was read since it last ended (agent_collect). */
  collected: boolean;
  /** Runs started so far (agent_resume starts another). */
  rounds: number;
}

export class BackgroundAgents {
  readonly #agents = new Map<string, Entry>();
  readonly #steering = new Map<string, string[]>();
  /** Per parent: the running agents it was last told about when it tried to end. */
  readonly #told = new Map<string, string>();
  readonly #emit: (agent: AgentIdentity, event: AgentEvent) => void;
  readonly #maxRunning: number;

  constructor(options: { emit: (agent: AgentIdentity, event: AgentEvent) => void; maxRunning: number }) {
    this.#emit = options.emit;
    this.#maxRunning = options.maxRunning;
  }

  /** Room for one more running agent; else why not. */
  refusal(): string | undefined {
    const running = this.#running().length;
    return running < this.#maxRunning
      ? undefined
      : `Not started: ${running} background agents are running, the most at once (agent.maxParallel). Collect or cancel one first.`;
  }

  /** Starts `launch` in the background for `identity`; `history` ends with its task. */
  start(
    identity: AgentIdentity & { parentAgentId: string },
    name: string,
    request: SpawnRequest,
    history: ChatMessage[],
    launch: BackgroundLaunch,
  ): ToolResult {
    const entry: Entry = {
      identity,
      name,
      task: request.task,
      history,
      launch,
      status: 'running',
      output: '',
      partial: '',
      activity: '',
      startedAt: performance.now(),
      controller: new AbortController(),
      done: Promise.resolve(),
      collected: false,
      rounds: 0,
    };
    this.#agents.set(identity.agentId, entry);
    this.#run(entry);
    return {
      output: `Started ${identity.agentId} (${identity.agentRole}) in the background. Go on with other work; use agent_status, agent_steer and agent_collect with id "${identity.agentId}". You cannot finish while it runs: collect it (agent_collect with wait) or cancel it (agent_cancel).`,
      summary: `${identity.agentId} started in the background`,
    };
  }

  /** Follows what a background agent reports, for its partial output. */
  observe(agentId: string, event: AgentEvent): void {
    const entry = this.#agents.get(agentId);
    if (entry === undefined || entry.status !== 'running') return;
    if (event.type === 'text') entry.partial = (entry.partial + event.text).slice(-PARTIAL_CHARS);
    else if (event.type === 'tool_call') entry.activity = `calling ${event.summary}`;
    else if (event.type === 'status') entry.activity = event.text;
  }

  /** The loop's inbox for `agentId` (any agent: steering is for background ones, the hold for all). */
  inbox(agentId: string): AgentInbox {
    return {
      take: () => this.#takeSteering(agentId),
      holdFinish: () => this.#holdFinish(agentId),
    };
  }

  status(parentId: string, id: string | undefined): ToolResult {
    const entries = id === undefined ? this.#childrenOf(parentId) : [this.#find(parentId, id)];
    if (entries.some((entry) => entry === undefined)) return this.#unknown(parentId, id as string);
    const list = entries as Entry[];
    if (list.length === 0)
      return { output: 'You have started no background agents.', summary: 'no background agents' };
    return {
      output: list.map((entry) => this.#line(entry)).join('\n'),
      summary: `${list.filter((entry) => entry.status === 'running').length} running`,
    };
  }

  steer(parentId: string, id: string, text: string): ToolResult {
    const entry = this.#find(parentId, id);
    if (entry === undefined) return this.#unknown(parentId, id);
    if (entry.status !== 'running')
      return error(
        'not_running',
        `${id} has ended (${entry.status}); guidance would not reach it. Read its result with agent_collect, or give it new instructions with agent_resume.`,
      );
    const queue = this.#steering.get(id) ?? [];
    queue.push(text);
    this.#steering.set(id, queue);
    this.#emit(entry.identity, { type: 'status', text: `Guidance from ${parentId}: ${oneLine(text)}` });
    return {
      output: `Sent to ${id}: it reads it as a message from you before its next model call.`,
      summary: `steered ${id}`,
    };
  }

  /** The result, or after `waitMs` without one, that it still runs and what it has written so far. */
  async collect(parentId: string, id: string, waitMs: number, signal: AbortSignal): Promise<ToolResult> {
    const entry = this.#find(parentId, id);
    if (entry === undefined) return this.#unknown(parentId, id);
    if (entry.status === 'running' && waitMs > 0) await settledWithin(entry.done, waitMs, signal);
    if (entry.status === 'running') {
      const partial = entry.partial.trim();
      return {
        output: `${id} is still running (${seconds(performance.now() - entry.startedAt)} s${entry.activity === '' ? '' : `; ${entry.activity}`}). Its output so far:\n${partial === '' ? '(nothing yet)' : partial}\nCollect it again later (wait up to 600 s), steer it, or cancel it.`,
        summary: `${id} still running`,
      };
    }
    entry.collected = true;
    return {
      output: `## ${id} (${entry.identity.agentRole}): ${entry.status}\n${entry.output === '' ? '(no output)' : entry.output}`,
      summary: `${id}: ${entry.status}`,
      ...(entry.status === 'completed' ? {} : { isError: true, errorType: `agent_${entry.status}` }),
    };
  }

  /** Continues a finished agent, in the background again, with `task` as its next message. */
  resume(parentId: string, id: string, task: string): ToolResult {
    const entry = this.#find(parentId, id);
    if (entry === undefined) return this.#unknown(parentId, id);
    if (entry.status === 'running')
      return error('still_running', `${id} is still running: use agent_steer to give it guidance now.`);
    const refusal = this.refusal();
    if (refusal !== undefined) return error('too_many_agents', refusal);
    entry.history.push({ role: 'user', content: [{ type: 'text', text: `New instructions:\n${task}` }] });
    entry.status = 'running';
    entry.output = '';
    entry.partial = '';
    entry.activity = '';
    entry.collected = false;
    entry.startedAt = performance.now();
    entry.controller = new AbortController();
    this.#emit(entry.identity, { type: 'section', title: `${entry.name} (resumed): ${oneLine(task)}` });
    this.#run(entry);
    return {
      output: `${id} goes on in the background with your instructions; it keeps its conversation so far.`,
      summary: `${id} resumed`,
    };
  }

  async cancel(parentId: string, id: string): Promise<ToolResult> {
    const entry = this.#find(parentId, id);
    if (entry === undefined) return this.#unknown(parentId, id);
    if (entry.status !== 'running')
      return { output: `${id} had already ended (${entry.status}).`, summary: `${id} already ended` };
    await this.#stop([entry], `${parentId} cancelled it`);
    return {
      output: `${id} was cancelled. What it had written:\n${entry.partial.trim() === '' ? '(nothing)' : entry.partial.trim()}`,
      summary: `${id} cancelled`,
    };
  }

  /** Stops every agent still running (the run is ending) and waits until each has ended. */
  async stopAll(reason: string): Promise<void> {
    await this.#stop(this.#running(), reason);
  }

  #run(entry: Entry): void {
    const { signal } = entry.controller;
    entry.done = entry
      .launch(entry.history, signal, entry.rounds++)
      .catch((failure: unknown): BackgroundOutcome => ({
        status: 'error',
        output: `The agent failed: ${failure instanceof Error ? failure.message : String(failure)}`,
      }))
      .then((outcome) => {
        entry.status = outcome.status;
        entry.output = outcome.output;
        entry.endedAt = performance.now();
        this.#steering.delete(entry.identity.agentId);
      });
  }

  async #stop(entries: Entry[], reason: string): Promise<void> {
    for (const entry of entries) {
      this.#emit(
        { agentId: entry.identity.parentAgentId },
        {
          type: 'status',
          level: 'warning',
          text: `Background agent ${entry.identity.agentId} cancelled: ${reason}.`,
        },
      );
      entry.controller.abort(new Error(reason));
    }
    await Promise.all(entries.map((entry) => entry.done));
  }

  #takeSteering(agentId: string): string[] {
    const queue = this.#steering.get(agentId);
    if (queue === undefined || queue.length === 0) return [];
    this.#steering.delete(agentId);
    const parent = this.#agents.get(agentId)?.identity.parentAgentId ?? 'your parent agent';
    return queue.map((text) => `Guidance from ${parent}, sent while you work:\n${text}`);
  }

  #holdFinish(agentId: string): string | undefined {
    const steering = this.#takeSteering(agentId);
    if (steering.length > 0) return steering.join('\n\n');
    const running = this.#childrenOf(agentId).filter((entry) => entry.status === 'running');
    if (running.length === 0) return undefined;
    const key = running.map((entry) => entry.identity.agentId).join(',');
    if (this.#told.get(agentId) !== key) {
      this.#told.set(agentId, key);
      this.#emit(
        { agentId },
        {
          type: 'status',
          text: `${agentId} wanted to finish while ${key} still ran: told to collect or cancel them.`,
        },
      );
      return `Not finished: background agents you started are still running: ${running.map((entry) => this.#line(entry)).join('; ')}. Collect their results (agent_collect with wait) or cancel them (agent_cancel), then finish. If you finish again while they run, they are cancelled.`;
    }
    // Told, and ending again with the same agents running: the parent says to stop them.
    for (const entry of running)
      entry.controller.abort(new Error(`${agentId} finished without collecting it`));
    for (const entry of running)
      this.#emit(
        { agentId },
        {
          type: 'status',
          level: 'warning',
          text: `Background agent ${entry.identity.agentId} cancelled: ${agentId} finished without collecting it.`,
        },
      );
    return undefined;
  }

  #running(): Entry[] {
    return [...this.#agents.values()].filter((entry) => entry.status === 'running');
  }

  #childrenOf(parentId: string): Entry[] {
    return [...this.#agents.values()].filter((entry) => entry.identity.parentAgentId === parentId);
  }

  /** Only the agent that started a background agent may address it. */
  #find(parentId: string, id: string): Entry | undefined {
    const entry = this.#agents.get(id.trim());
    return entry?.identity.parentAgentId === parentId ? entry : undefined;
  }

  #unknown(parentId: string, id: string): ToolResult {
    const mine = this.#childrenOf(parentId).map((entry) => entry.identity.agentId);
    return error(
      'unknown_agent',
      `There is no background agent "${id}" of yours. ${mine.length === 0 ? 'You have started none: spawn_agent with background: true starts one.' : `Yours: ${mine.join(', ')}.`}`,
    );
  }

  #line(entry: Entry): string {
    const end = entry.endedAt ?? performance.now();
    const took = `${seconds(end - entry.startedAt)} s`;
    const state =
      entry.status === 'running'
        ? `running for ${took}${entry.activity === '' ? '' : `, ${entry.activity}`}`
        : `${entry.status} after ${took}${entry.collected ? ', collected' : ', not collected yet'}`;
    return `${entry.identity.agentId} (${entry.identity.agentRole}): ${state} — task: ${oneLine(entry.task)}`;
  }
}

/** Resolves when `done` settles, `ms` pass or `signal` aborts, whichever is first. */
async function settledWithin(done: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  await Promise.race([
    done,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      onAbort = resolve;
      signal.addEventListener('abort', onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
}

function error(errorType: string, output: string): ToolResult {
  return { output, summary: errorType.replaceAll('_', ' '), isError: true, errorType };
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
