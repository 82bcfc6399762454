/**
 * What the scripted server plays when the client sends `prompt`, one scenario per client run, and
 * the checks only that scenario can make. Every scenario's phases and requests are valid protocol
 * messages (forward-compat's extra fields and unknown types excepted, on purpose), so a client that
 * stumbles has only itself to blame.
 */
import { JsonRpcErrorCodes } from '#protocol';
import type { Exchange } from './checks.ts';
import { type Finding, fail, notApplicable, pass } from './findings.ts';
import { isObject } from './json-schema.ts';
import type { PromptHandler } from './scripted-peer.ts';
import { answered, delay, ended, phases, RUN, result, USAGE } from './scripted-run.ts';
import { editor } from './editor-scenario.ts';
import { asMessage, isRequest, isResponse, type RpcMessage, sameId } from './wire.ts';

export interface ScenarioContext {
  /** The client runs with no person to answer (or approves everything by a setting). */
  unattended: boolean;
}

export interface Scenario {
  name: string;
  summary: string;
  /** Changes to the `initialize` result (forward-compat adds fields a newer server might send). */
  initializeResult?: (base: Record<string, unknown>) => Record<string, unknown>;
  play: PromptHandler;
  evaluate?: (exchange: Exchange, context: ScenarioContext) => Finding[];
}

/** Longest a scenario waits for one answer; the scenario's deadline cuts it short anyway. */
const WAIT_MS = 60_000;
/** How long forward-compat waits for the answer to its unknown request before going on. */
const UNKNOWN_REQUEST_WAIT_MS = 3000;
const GREETING_DIFF = {
  added: 1,
  removed: 0,
  hunks: [
    {
      oldStart: 0,
      oldLines: 0,
      newStart: 1,
      newLines: 1,
      lines: [{ type: 'added', text: 'Hello, world', newLine: 1 }],
    },
  ],
  unifiedDiff: '--- /dev/null\n+++ b/greeting.txt\n@@ -0,0 +1 @@\n+Hello, world\n',
  replacement: false,
};

function fileChange(toolCallId: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    kind: 'file_change',
    ...RUN,
    agentId: 'orchestrator',
    toolCallId,
    toolName: 'write_file',
    path,
    operation: 'create',
    diff: GREETING_DIFF,
    ...extra,
  };
}

/** The decision an approve response carried, or what it was instead. */
function decisionOf(answer: RpcMessage | 'cancelled'): string {
  if (answer === 'cancelled') return 'unanswered';
  if (isObject(answer.error)) return `error ${String(answer.error.code)}`;
  return isObject(answer.result) && typeof answer.result.decision === 'string'
    ? answer.result.decision
    : 'invalid';
}

function toolResult(
  send: ReturnType<typeof phases>,
  toolCallId: string,
  toolName: string,
  decision: string,
): void {
  const allowed = decision === 'allow' || decision === 'allow_all';
  send('tool_result', {
    toolCallId,
    toolName,
    status: allowed ? 'ok' : 'rejected',
    summary: allowed ? 'done' : 'rejected',
    output: allowed ? 'Done.' : 'The user rejected this action.',
  });
}

const greeting: Scenario = {
  name: 'greeting',
  summary: 'a greeting streamed as status, thinking and three text deltas, then complete',
  play(run) {
    const send = phases(run);
    send('status', { text: 'Route: simple_chat (a greeting)' });
    send('thinking', { text: 'The user says hello.' });
    for (const delta of ['Hello', ', world', '!']) send('text', { text: delta });
    return Promise.resolve(ended(send, 'completed', 'Hello, world!'));
  },
};

const approve: Scenario = {
  name: 'approve',
  summary: 'a file change (approve id 0, with its diff) and a command (approve id "cmd-1") to approve',
  async play(run) {
    const send = phases(run);
    send('status', { text: 'Route: agent_task (asks for an action)' });
    if (run.capabilities.approve !== true) {
      send('text', { text: 'The client cannot approve, so nothing was changed.' });
      return ended(send, 'completed', 'Nothing was changed.');
    }
    send('tool_call', {
      toolCallId: 'toolu_1',
      toolName: 'write_file',
      args: { path: 'greeting.txt', content: 'Hello, world\n' },
      summary: 'write_file greeting.txt',
    });
    const first = decisionOf(await run.request(0, 'approve', fileChange('toolu_1', 'greeting.txt')));
    toolResult(send, 'toolu_1', 'write_file', first);
    send('tool_call', {
      toolCallId: 'toolu_2',
      toolName: 'run_command',
      args: { command: 'npm test' },
      summary: 'run_command npm test',
    });
    const command = {
      kind: 'command',
      ...RUN,
      agentId: 'orchestrator',
      toolCallId: 'toolu_2',
      toolName: 'run_command',
      command: 'npm test',
      cwd: '/workspace',
    };
    const second = decisionOf(await run.request('cmd-1', 'approve', command));
    toolResult(send, 'toolu_2', 'run_command', second);
    return answered(send, `write_file: ${first}; run_command: ${second}.`);
  },
};

const ask: Scenario = {
  name: 'ask',
  summary: 'a question with options (ask id "q-1") and a free-text question (ask id 2)',
  async play(run) {
    const send = phases(run);
    if (run.capabilities.ask !== true) {
      send('text', { text: 'The client cannot answer questions, so none was asked.' });
      return ended(send, 'completed', 'No question was asked.');
    }
    const question = {
      ...RUN,
      agentId: 'orchestrator',
      toolCallId: 'ask_q-1',
      header: 'Style',
      prompt: 'Tabs or spaces?',
      options: [
        { label: 'Tabs', value: 'tabs' },
        { label: 'Spaces', value: 'spaces' },
      ],
    };
    const answers: string[] = [];
    for (const [id, params] of [
      ['q-1', question],
      [
        2,
        { ...RUN, agentId: 'orchestrator', toolCallId: 'ask_2', prompt: 'What should the file be called?' },
      ],
    ] as const) {
      send('tool_call', {
        toolCallId: `ask_${id}`,
        toolName: 'ask_user',
        args: { prompt: params.prompt },
        summary: `ask_user ${params.prompt}`,
      });
      const answer = await run.request(id, 'ask', params);
      const text =
        answer !== 'cancelled' && isObject(answer.result) ? String(answer.result.answer) : 'no answer';
      answers.push(text);
      send('tool_result', {
        toolCallId: `ask_${id}`,
        toolName: 'ask_user',
        status: 'ok',
        summary: `answered: ${text}`,
        output: `The user answered: ${text}`,
      });
    }
    return answered(send, `Answers: ${answers.join(', ')}.`);
  },
};

const cancel: Scenario = {
  name: 'cancel',
  summary: 'a run that streams "working" and then waits until the client cancels it',
  async play(run) {
    const send = phases(run);
    send('status', { text: 'Route: agent_task (a long job)' });
    send('text', { text: 'working' });
    run.cue('cancel');
    const cancelled = await run.waitForClient(
      (m) => m.method === '$/cancelRequest' && isObject(m.params) && sameId(m.params.id, run.promptId),
      WAIT_MS,
    );
    const status = cancelled === undefined ? 'completed' : 'cancelled';
    send('complete', { status, output: 'working' });
    // The estimate goes in the result only: a `complete` phase carries no usage.
    return result(status, 'working', status === 'cancelled' ? { usage: { ...USAGE, estimated: true } } : {});
  },
  evaluate({ transcript }) {
    const client = transcript.filter((e) => e.from === 'client').map(asMessage);
    const prompt = client.find((m) => m?.method === 'prompt' && isRequest(m));
    if (prompt === undefined)
      return [fail('SANTRA-CLIENT-009', 'the client sent no prompt, so there was no run to cancel')];
    const cancels = client.filter((m) => m?.method === '$/cancelRequest');
    const right = cancels.find((m) => isObject(m?.params) && sameId(m.params.id, prompt.id));
    if (right !== undefined)
      return [pass('SANTRA-CLIENT-009', `$/cancelRequest named prompt ${JSON.stringify(prompt.id)}`)];
    const other = cancels.map((m) => JSON.stringify(m?.params)).join(', ');
    return [
      fail(
        'SANTRA-CLIENT-009',
        `the run was cued for cancellation but no $/cancelRequest named prompt ${JSON.stringify(prompt.id)}${other === '' ? '' : ` (cancels seen: ${other})`}`,
      ),
    ];
  },
};

const FUTURE = { santraFuture: { note: 'a field from a newer minor version', values: [1, 2] } };

const forwardCompat: Scenario = {
  name: 'forward-compat',
  summary:
    'unknown fields everywhere, an unknown phase type, an unknown server request, then an approve; the client must carry on',
  initializeResult: (base) => ({
    ...base,
    ...FUTURE,
    capabilities: { ...(base.capabilities as Record<string, unknown>), holograms: true },
  }),
  async play(run) {
    const send = phases(run);
    send('status', { text: 'Route: simple_chat', ...FUTURE });
    send('santra_hologram', { hologram: { shape: 'cube', frames: [0, 1] } });
    send('text', { text: 'Still here.', emphasis: 'strong' });
    // A client that leaves it unanswered fails SANTRA-CLIENT-015; the run goes on without it.
    await Promise.race([
      run.request(41, 'santra/projectHologram', { shape: 'cube' }),
      delay(UNKNOWN_REQUEST_WAIT_MS),
    ]);
    let decision = 'not asked';
    if (run.capabilities.approve === true)
      decision = decisionOf(
        await run.request(42, 'approve', fileChange('toolu_9', 'future.txt', { riskScore: 0.25 })),
      );
    send('santra_hologram', { hologram: { shape: 'sphere' } });
    const output = `Still here (approval: ${decision}).`;
    return ended(send, 'completed', output, FUTURE);
  },
  evaluate({ transcript, ending }) {
    const approveSent = transcript.some((e) => e.from === 'server' && asMessage(e)?.method === 'approve');
    const answered = transcript.some((e) => {
      const m = asMessage(e);
      return e.from === 'client' && m !== undefined && isResponse(m) && sameId(m.id, 42);
    });
    const shutdown = transcript.some((e) => e.from === 'client' && asMessage(e)?.method === 'shutdown');
    const problem =
      approveSent && !answered
        ? 'the approve (id 42) that followed the unknown phase type and fields was never answered'
        : !shutdown
          ? `after the unknown phase type and fields, the client did not end with shutdown (the connection ended: ${ending.replaceAll('_', ' ')})`
          : undefined;
    if (problem !== undefined) return [fail('SANTRA-VER-003', problem), fail('SANTRA-MSG-015', problem)];
    const went = `carried on${approveSent ? ', answered approve 42' : ''} and shut down`;
    return [
      pass('SANTRA-VER-003', `ignored the phase type santra_hologram: ${went}`),
      pass(
        'SANTRA-MSG-015',
        `ignored unknown fields in the initialize result, phases, approve and prompt result: ${went}`,
      ),
    ];
  },
};

const advertisedPhaseType: Scenario = {
  name: 'advertised-phase-type',
  summary: 'the initialize result lists a phase type the client does not know, then a greeting streams',
  initializeResult: (base) => {
    const capabilities = base.capabilities as Record<string, unknown>;
    return {
      ...base,
      capabilities: {
        ...capabilities,
        phaseTypes: [...(capabilities.phaseTypes as string[]), 'santra_hologram'],
      },
    };
  },
  play: greeting.play,
  evaluate({ transcript }) {
    const initialized = transcript.some((e) => e.from === 'client' && asMessage(e)?.method === 'initialized');
    const prompted = transcript.some((e) => e.from === 'client' && asMessage(e)?.method === 'prompt');
    return initialized && prompted
      ? [pass('SANTRA-CLIENT-016', 'the client accepted the initialize result and sent its prompt')]
      : [
          fail(
            'SANTRA-CLIENT-016',
            `the client did not go on after an initialize result listing the phase type santra_hologram (${initialized ? 'initialized' : 'no initialized'}, ${prompted ? 'a prompt' : 'no prompt'})`,
          ),
        ];
  },
};

const promptError: Scenario = {
  name: 'prompt-error',
  summary: 'the prompt is answered with an InternalError response instead of a result',
  play(run) {
    run.note('answering the prompt with an error');
    return Promise.resolve({
      error: {
        code: JsonRpcErrorCodes.InternalError,
        message: 'Internal error: the scripted server fails this prompt on purpose.',
        data: { retryable: false },
      },
    });
  },
  evaluate({ transcript, ending }) {
    const errorAt = transcript.findIndex((e) => {
      const m = asMessage(e);
      return e.from === 'server' && m !== undefined && isResponse(m) && isObject(m.error);
    });
    if (errorAt === -1)
      return [fail('SANTRA-CLIENT-010', 'the client sent no prompt, so no error could be answered')];
    const next = transcript
      .slice(errorAt + 1)
      .find((e) => e.from === 'client' && asMessage(e)?.method !== undefined);
    if (next !== undefined)
      return [
        pass(
          'SANTRA-CLIENT-010',
          `after the error the client sent ${String(asMessage(next)?.method)} (at ${next.at} ms)`,
        ),
      ];
    if (ending !== 'deadline')
      return [
        pass(
          'SANTRA-CLIENT-010',
          `after the error the client ended the connection (${ending.replaceAll('_', ' ')})`,
        ),
      ];
    return [
      fail(
        'SANTRA-CLIENT-010',
        'after the error response to prompt the client sent nothing and did not end the connection: it hangs',
      ),
    ];
  },
};

const protectedPath: Scenario = {
  name: 'protected',
  summary: 'a protected file change (.git/hooks/pre-commit), which only a person may allow',
  async play(run) {
    const send = phases(run);
    if (run.capabilities.approve !== true) {
      return ended(send, 'completed', 'Nothing was changed.');
    }
    send('tool_call', {
      toolCallId: 'toolu_p',
      toolName: 'write_file',
      args: { path: '.git/hooks/pre-commit' },
      summary: 'write_file .git/hooks/pre-commit',
    });
    const params = fileChange('toolu_p', '.git/hooks/pre-commit', {
      protected: true,
      protectedReason: 'git hooks run code on every commit',
    });
    const decision = decisionOf(await run.request(0, 'approve', params));
    toolResult(send, 'toolu_p', 'write_file', decision);
    return ended(send, 'completed', `protected write: ${decision}`);
  },
  evaluate({ transcript }, { unattended }) {
    if (!unattended)
      return [
        notApplicable(
          'SANTRA-APPROVE-016',
          'the client was run with a person to answer, who may allow a protected change',
        ),
      ];
    const answer = transcript
      .filter((e) => e.from === 'client')
      .map(asMessage)
      .find((m) => m !== undefined && isResponse(m) && m.id === 0);
    if (answer === undefined)
      return [
        notApplicable(
          'SANTRA-APPROVE-016',
          'the protected approve was never answered (SANTRA-CLIENT-006 reports it)',
        ),
      ];
    const decision = isObject(answer.result) ? answer.result.decision : undefined;
    return decision === 'allow' || decision === 'allow_all'
      ? [
          fail(
            'SANTRA-APPROVE-016',
            `the protected change was answered "${String(decision)}" with no person to ask`,
          ),
        ]
      : [
          pass(
            'SANTRA-APPROVE-016',
            `the protected change was ${isObject(answer.error) ? 'declined with an error' : `answered "${String(decision)}"`}`,
          ),
        ];
  },
};

export const SCENARIOS: readonly Scenario[] = [
  greeting,
  approve,
  ask,
  cancel,
  forwardCompat,
  advertisedPhaseType,
  promptError,
  protectedPath,
  editor,
];

export function scenarioNamed(name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (scenario === undefined)
    throw new Error(
      `unknown scenario ${JSON.stringify(name)}; the scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  return scenario;
}
