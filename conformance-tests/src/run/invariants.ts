/**
 * The requirements that hold for every message, watched on every server a scenario starts: the
 * schema (SANTRA-MSG-001), framing, error codes and data, the order of phases and of the `prompt`
 * response, and keys never leaving the server. Each gives one verdict per scenario, when it is
 * over: failed with the first violations seen, or passed when it had something to judge.
 */
import { errorCatalog, JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { MessageValidator } from '../spec/schema.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import { FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY, type ScenarioContext } from './context.ts';

const SHOWN = 3;

/** The `data` fields each error code must carry (SANTRA-ERR-003). */
const REQUIRED_DATA: Record<number, string[]> = {
  [JsonRpcErrorCodes.InvalidParams]: ['issues'],
  [SantraErrorCodes.UnsupportedProtocolVersion]: ['supported', 'requested'],
  [SantraErrorCodes.MessageTooLarge]: ['limit', 'size'],
  [SantraErrorCodes.ServerBusy]: ['limit'],
  [SantraErrorCodes.SessionInOtherWorkspace]: ['workspaceRoot'],
};

class Verdicts {
  readonly #violations = new Map<string, string[]>();
  readonly #observed = new Map<string, string>();

  observe(id: string, what: string): void {
    if (!this.#observed.has(id)) this.#observed.set(id, what);
  }

  violate(id: string, text: string): void {
    const list = this.#violations.get(id) ?? [];
    list.push(text);
    this.#violations.set(id, list);
  }

  report(context: ScenarioContext, label: string): void {
    for (const [id, what] of this.#observed) {
      const violations = this.#violations.get(id);
      if (violations === undefined) context.check(id, true, `${label}: ${what}`);
    }
    for (const [id, violations] of this.#violations) {
      const more = violations.length > SHOWN ? ` (and ${violations.length - SHOWN} more)` : '';
      context.check(id, false, `${label}: ${violations.slice(0, SHOWN).join('; ')}${more}`);
    }
  }
}

interface RunState {
  sessionId: string;
  closed: boolean;
  answered: boolean;
  openToolCalls: Set<string>;
  phases: number;
}

export function watch(context: ScenarioContext, server: ServerUnderTest, validator: MessageValidator): void {
  const verdicts = new Verdicts();
  const runs = new Map<string, RunState>();
  const lastSeq = new Map<string, number>();
  const resuming = new Set<string>();
  // The limit the server advertised in `initialize`; before that there is none to hold it to.
  let maxMessageBytes: number | undefined;
  let phaseTypes: Set<string> | undefined;
  const label = `server ${context.servers.length}`;

  const onPhase = (phase: Json) => {
    const runId = String(phase.runId);
    const sessionId = String(phase.sessionId);
    const type = String(phase.type);
    if (phaseTypes !== undefined) {
      verdicts.observe('SANTRA-PHASE-006', `every phase type sent was declared`);
      if (!phaseTypes.has(type))
        verdicts.violate('SANTRA-PHASE-006', `a ${type} phase, which capabilities.phaseTypes does not list`);
    }
    // Phases sent again by session/resume (afterSeq) are a replay, outside any live run.
    if ([...resuming].some((id) => id === sessionId)) return;
    const previous = lastSeq.get(sessionId);
    const seq = Number(phase.seq);
    // Phases a subscription sends again from the store (§10.11): the run's order rules are about
    // phases as they happen. Those the client has not had yet still follow on from what it had,
    // and a tool call read back is open for the result that may follow live.
    if (phase.replayed === true) {
      if (previous === undefined || seq > previous) {
        if (previous !== undefined && seq !== previous + 1)
          verdicts.violate('SANTRA-PHASE-001', `seq ${seq} followed seq ${previous} in session ${sessionId}`);
        lastSeq.set(sessionId, seq);
      }
      const replayedRun = runs.get(runId) ?? {
        sessionId,
        closed: false,
        answered: false,
        openToolCalls: new Set<string>(),
        phases: 0,
      };
      runs.set(runId, replayedRun);
      if (type === 'tool_call') replayedRun.openToolCalls.add(String(phase.toolCallId));
      if (type === 'tool_result') replayedRun.openToolCalls.delete(String(phase.toolCallId));
      if (type === 'complete' && phase.parentAgentId === undefined) replayedRun.closed = true;
      return;
    }
    if (previous !== undefined) {
      verdicts.observe('SANTRA-PHASE-001', 'seq went up by one per phase');
      if (seq !== previous + 1)
        verdicts.violate('SANTRA-PHASE-001', `seq ${seq} followed seq ${previous} in session ${sessionId}`);
    }
    lastSeq.set(sessionId, seq);
    let run = runs.get(runId);
    if (run === undefined) {
      run = { sessionId, closed: false, answered: false, openToolCalls: new Set(), phases: 0 };
      runs.set(runId, run);
    }
    run.phases++;
    if (run.answered)
      verdicts.violate(
        'SANTRA-PROMPT-001',
        `a ${type} phase (seq ${seq}) of run ${runId} after its prompt response`,
      );
    if (run.closed)
      verdicts.violate(
        'SANTRA-PHASE-004',
        `a ${type} phase (seq ${seq}) of run ${runId} after its root complete`,
      );
    if (type === 'tool_call') run.openToolCalls.add(String(phase.toolCallId));
    if (type === 'tool_result') {
      const id = String(phase.toolCallId);
      // Judged only where a tool was called: a run without tool calls does not exercise it.
      verdicts.observe('SANTRA-PHASE-005', 'every tool_call had one tool_result');
      if (!run.openToolCalls.delete(id))
        verdicts.violate('SANTRA-PHASE-005', `a tool_result for ${id}, which has no open tool_call`);
    }
    if (type === 'complete' && phase.parentAgentId === undefined) {
      run.closed = true;
      verdicts.observe('SANTRA-PHASE-004', 'the root complete was the last phase of each run');
      for (const id of run.openToolCalls)
        verdicts.violate('SANTRA-PHASE-005', `tool_call ${id} of run ${runId} got no tool_result`);
    }
  };

  const onPromptResult = (result: Json) => {
    const runId = String(result.runId);
    const run = runs.get(runId);
    verdicts.observe('SANTRA-PROMPT-001', 'each prompt was answered after its phases');
    verdicts.observe('SANTRA-PROMPT-002', "each prompt result named its phases' run and session");
    if (run === undefined) {
      // A run has at least its root complete, so an answer with no phase came before it.
      verdicts.violate(
        'SANTRA-PROMPT-001',
        `run ${runId} was answered without a single phase, root complete included`,
      );
      verdicts.violate('SANTRA-PROMPT-002', `the prompt result names run ${runId}, which sent no phase`);
      return;
    }
    run.answered = true;
    if (!run.closed)
      verdicts.violate('SANTRA-PROMPT-001', `run ${runId} was answered before its root complete`);
    if (run.sessionId !== result.sessionId)
      verdicts.violate(
        'SANTRA-PROMPT-002',
        `the result of run ${runId} names session ${String(result.sessionId)}, its phases ${run.sessionId}`,
      );
  };

  const onError = (error: Json) => {
    const code = error.code as number;
    const data = (error.data ?? {}) as Json;
    const known = errorCatalog.find((entry) => entry.code === code);
    verdicts.observe('SANTRA-ERR-001', 'every error code was one of the table');
    verdicts.observe('SANTRA-ERR-002', 'every error carried data.retryable as the table gives it');
    verdicts.observe('SANTRA-ERR-003', 'every error carried the data fields of its code');
    if (known === undefined) {
      verdicts.violate('SANTRA-ERR-001', `error code ${code}, which the table does not have`);
      return;
    }
    if (data.retryable !== known.retryable)
      verdicts.violate(
        'SANTRA-ERR-002',
        `${known.name} with data.retryable ${JSON.stringify(data.retryable)}, not ${known.retryable}`,
      );
    const missing = (REQUIRED_DATA[code] ?? []).filter((field) => !Object.hasOwn(data, field));
    if (missing.length > 0)
      verdicts.violate('SANTRA-ERR-003', `${known.name} without data.${missing.join(', data.')}`);
  };

  server.onMessage((message, bytes) => {
    verdicts.observe('SANTRA-MSG-001', 'every message matched the schema');
    verdicts.observe('SANTRA-FRAME-001', 'every frame was well formed');
    verdicts.observe('SANTRA-FRAME-002', 'every body was JSON');
    verdicts.observe('SANTRA-FRAME-016', 'stdout carried frames only');
    const problems = validator.check(message, (id) => server.sentMethods.get(id));
    if (problems.length > 0)
      verdicts.violate(
        'SANTRA-MSG-001',
        `${JSON.stringify(message).slice(0, 160)}: ${problems.slice(0, 2).join('; ')}`,
      );
    if (maxMessageBytes !== undefined)
      verdicts.observe('SANTRA-FRAME-015', 'no body exceeded the advertised maxMessageBytes');
    if (maxMessageBytes !== undefined && bytes > maxMessageBytes)
      verdicts.violate(
        'SANTRA-FRAME-015',
        `a body of ${bytes} bytes, over maxMessageBytes ${maxMessageBytes}`,
      );
    const text = JSON.stringify(message);
    if (text.includes(FAKE_ANTHROPIC_KEY) || text.includes(FAKE_OPENAI_KEY))
      verdicts.violate('SANTRA-SESSION-002', `an API key in ${text.slice(0, 120)}`);
    if (typeof message.method === 'string' && Object.hasOwn(message, 'id')) {
      verdicts.observe(
        'SANTRA-MSG-006',
        'the server numbered its requests with integers or non-empty strings',
      );
      if (!(Number.isInteger(message.id) || (typeof message.id === 'string' && message.id !== '')))
        verdicts.violate('SANTRA-MSG-006', `a server request with id ${JSON.stringify(message.id)}`);
    }
    // A server that never ran a prompt never had a use for the key: that proves nothing.
    if (message.method === 'phase') verdicts.observe('SANTRA-SESSION-002', 'no message held an API key');
    if (message.method === 'phase' && typeof message.params === 'object') onPhase(message.params as Json);
    if (typeof message.error === 'object' && message.error !== null) onError(message.error as Json);
    const answered = Object.hasOwn(message, 'id') ? server.sentMethods.get(String(message.id)) : undefined;
    if (message.method === undefined && answered === 'session/resume' && typeof message.result === 'object')
      for (const id of resuming) resuming.delete(id);
    if (message.method !== undefined || typeof message.result !== 'object' || message.result === null) return;
    if (answered === 'prompt') onPromptResult(message.result as Json);
    if (answered === 'initialize') {
      const capabilities = ((message.result as Json).capabilities ?? {}) as Json;
      const limits = (capabilities.limits ?? {}) as Json;
      if (typeof limits.maxMessageBytes === 'number') maxMessageBytes = limits.maxMessageBytes;
      if (Array.isArray(capabilities.phaseTypes)) phaseTypes = new Set(capabilities.phaseTypes as string[]);
    }
  });
  const send = server.send.bind(server);
  server.send = (message: unknown) => {
    const m = message as Json;
    if (m.method === 'session/resume' && typeof m.params === 'object' && m.params !== null)
      resuming.add(String((m.params as Json).sessionId));
    send(message);
  };
  context.finalizers.push(() => {
    for (const fault of server.wireFaults) {
      const id = fault.startsWith('a frame body that is not JSON') ? 'SANTRA-FRAME-002' : 'SANTRA-FRAME-001';
      verdicts.violate(id, fault);
      if (id === 'SANTRA-FRAME-001') verdicts.violate('SANTRA-FRAME-016', fault);
    }
    verdicts.report(context, label);
  });
}
