/**
 * A scripted Backend for the UI's component tests: prompts the test ends, phases the test sends,
 * and answers to the optional methods (`request`) from a table the test gives; and `start`, which
 * renders the whole App on it with ink-testing-library.
 */
import type { ApproveParams, ApproveResult, ModelEntry, ParamsOf, Phase, PromptResult } from '#protocol';
import { render } from 'ink-testing-library';
import { createElement as h } from 'react';
import type { Backend } from '../../src/ui/backend.ts';
import { App } from '../../src/ui/components/app.ts';
import { loadMarkdown } from '../../src/ui/components/entry-view.ts';
import { Controller } from '../../src/ui/controller.ts';
import type { Interactions } from '../../src/ui/interactions.ts';
import { turn, until } from './until.ts';

/** An approval as the test writes it: the ids of this session and run are added. */
type WithoutIds<T> = T extends unknown ? Omit<T, 'sessionId' | 'runId'> : never;

/**
 * Lets what is under way finish without a clock: applies the controller's queued events (what its
 * frame timer would do), and gives the promises the UI awaits and React's renders event-loop turns
 * until the frame has stayed the same for two of them. Work that waits on a timer (Ink's lone Esc)
 * needs `until` on its effect instead.
 */
export async function settled(controller: Controller, frame: () => string): Promise<void> {
  let last: string | undefined;
  let same = 0;
  for (let turns = 0; same < 2 && turns < 100; turns++) {
    controller.flush();
    await turn();
    const now = frame();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

export const MODELS: ModelEntry[] = [
  {
    ref: 'anthropic/claude-sonnet-4-5',
    provider: 'anthropic',
    id: 'claude-sonnet-4-5',
    contextWindow: 200000,
    configured: true,
    inputUsdPerMTok: 3,
    outputUsdPerMTok: 15,
  },
  { ref: 'openai/gpt-5', provider: 'openai', id: 'gpt-5', contextWindow: 400000, configured: false },
];

/** A Backend whose prompts the test ends, and that sends the phases the test gives. */
export interface ScriptOptions {
  models?: ModelEntry[];
  initial?: string;
  /** initialize's capabilities.methods; absent: not reported. */
  methods?: readonly string[];
  /** Answers of `request`, by method (a thrown error is the server refusing it). */
  answers?: Record<string, (params: unknown) => unknown>;
  /** Each provider's default model, as initialize reports it. */
  defaultModels?: ReadonlyMap<string, string>;
  /** The providers that need no key, as initialize reports them (needsKey false). */
  keyless?: ReadonlySet<string>;
  /** What `resume` does before it answers (e.g. send phases again). */
  onResume?: (sessionId: string, afterSeq: number | undefined) => void;
}

export function scripted(options: ScriptOptions = {}) {
  const { models = MODELS, initial = 'anthropic/claude-sonnet-4-5' } = options;
  const requests: { method: string; params: unknown }[] = [];
  const model = { current: initial };
  const prompts: ParamsOf<'prompt'>[] = [];
  const ends: ((result: PromptResult) => void)[] = [];
  let cancelled = 0;
  let closed = 0;
  let onPhase: (phase: Phase) => void = () => {};
  let interactions: Interactions | undefined;
  let seq = 0;
  const backend: Backend = {
    methods: options.methods === undefined ? undefined : new Set(options.methods),
    defaultModels: options.defaultModels ?? new Map(),
    keyless: options.keyless ?? new Set(['ollama', 'lmstudio', 'vllm']),
    prompt: (params) => {
      prompts.push(params);
      return new Promise((resolve) => ends.push(resolve));
    },
    cancelPrompt: () => void cancelled++,
    models: () => Promise.resolve({ current: model.current, models }),
    sessions: () => Promise.resolve({ sessions: [], warnings: [] }),
    resume: async (sessionId, afterSeq) => {
      const answer = options.answers?.['session/resume'];
      if (answer === undefined) throw new Error('no sessions');
      options.onResume?.(sessionId, afterSeq);
      requests.push({ method: 'session/resume', params: { sessionId, afterSeq } });
      return answer({ sessionId, afterSeq }) as Awaited<ReturnType<Backend['resume']>>;
    },
    request: (async (method: string, params: unknown) => {
      requests.push({ method, params });
      const answer = options.answers?.[method];
      if (answer === undefined) throw new Error(`${method} is not scripted`);
      return answer(params);
    }) as Backend['request'],
    agents: () => Promise.resolve({ agents: [], problems: [] }),
    close: () => {
      closed++;
      return Promise.resolve();
    },
    kill: () => {},
  };
  return {
    backend,
    model,
    prompts,
    requests,
    cancelled: () => cancelled,
    closed: () => closed,
    connect: (handlers: { onPhase: (phase: Phase) => void; interactions?: Interactions }) => {
      onPhase = handlers.onPhase;
      interactions = handlers.interactions;
      return Promise.resolve(backend);
    },
    /** The server asks for an approval, as santra-server's `approve` request does. */
    approve: (params: WithoutIds<ApproveParams>): Promise<ApproveResult> => {
      if (interactions === undefined) throw new Error('not connected');
      return interactions.approve(
        { sessionId: 'ses_12345678abc', runId: 'run-1', ...params },
        new AbortController().signal,
      );
    },
    phase: (fields: Record<string, unknown>, agentId = 'orchestrator', parentAgentId?: string) =>
      onPhase({
        runId: 'run-1',
        sessionId: 'ses_12345678abc',
        agentId,
        seq: ++seq,
        ...(parentAgentId === undefined ? {} : { parentAgentId, agentRole: 'reader' }),
        ...fields,
      } as Phase),
    end: (status: PromptResult['status'] = 'completed') =>
      ends.shift()?.({
        runId: 'run-1',
        sessionId: 'ses_12345678abc',
        status,
        output: '',
        usage: { inputTokens: 1200, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0.0042,
        sessionUsage: { inputTokens: 1200, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 },
        sessionCostUsd: 0.0042,
      }),
  };
}

export interface StartOptions {
  startDir?: string;
  /** `--permission-mode`: the mode the UI starts in. */
  permissionMode?: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';
  /** The server is ready when this settles (rejected: it failed to start); absent: at once. */
  starting?: Promise<void>;
}

export async function start(server = scripted(), options: StartOptions = {}) {
  await loadMarkdown();
  let exited = 0;
  const { starting, ...rest } = options;
  const controller = new Controller({
    connect: async (handlers) => {
      await starting;
      return server.connect(handlers);
    },
    workspaceRoot: '/home/ada/project',
    cwd: undefined,
    startDir: '/home/ada/project',
    ...rest,
    onExit: () => void exited++,
  });
  const view = render(h(App, { controller, size: { columns: 100, rows: 30 }, guardMs: 0 }));
  const frame = () => view.lastFrame() ?? '';
  const started = controller.start();
  if (starting === undefined) await started;
  await settled(controller, frame);
  return {
    ...view,
    server,
    controller,
    exited: () => exited,
    frame,
    /** Flushes the controller and lets the UI's promises and renders run (see `settled`). */
    settled: () => settled(controller, frame),
    /** Waits until the frame (after a flush) shows `pattern`. */
    shows: (pattern: RegExp | string, ms?: number) =>
      until(
        () => (typeof pattern === 'string' ? frame().includes(pattern) : pattern.test(frame())),
        `the frame to show ${String(pattern)}`,
        { step: () => controller.flush(), state: frame, ...(ms === undefined ? {} : { ms }) },
      ),
    /** Waits until `check` holds, flushing the controller before each look. */
    until: (check: () => boolean, what: string) =>
      until(check, what, { step: () => controller.flush(), state: frame }),
    type: async (text: string) => {
      view.stdin.write(text);
      await settled(controller, frame);
    },
  };
}
