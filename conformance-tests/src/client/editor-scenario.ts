/**
 * The client side of §7.5, for a client that lends its editor: the scripted server asks it to save
 * a file (`fs/writeTextFile`, SANTRA-FILES-007) and to run commands in its terminal (`terminal/run`,
 * SANTRA-FILES-010) — one whose output must not show a variable `unsetEnv` names, one with more
 * output than `outputByteLimit`, one that outlives `timeoutMs`, one cancelled — and looks at the
 * disk for what only the disk shows: whether the file held the text when the answer came, and
 * whether what the killed commands started in the background lived on. A client that lends
 * neither gets a plain answer, and both requirements are not applicable to it.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { type Finding, fail, fromProblems, notApplicable } from './findings.ts';
import { serverRequests } from './checks.ts';
import { isObject, validateDefinition } from './json-schema.ts';
import type { Scenario } from './scenarios.ts';
import type { RunContext } from './scripted-peer.ts';
import { answered, delay, phases, RUN, type Send } from './scripted-run.ts';
import { type RpcMessage, sameId, type WireEntry } from './wire.ts';

/** A variable the driver gives every client, which `terminal/run` tells it to keep from commands. */
export const SECRET_VARIABLE = 'SANTRA_CONFORMANCE_SECRET_TOKEN';
export const SECRET_VALUE = 'santra-conformance-secret-7d41c9';

/** What the scripted server saw on disk, as notes in the transcript that `evaluate` reads back. */
const OBSERVED = 'observed on disk: ';
const BEFORE = 'before\n';
const WRITTEN = 'after santra-conformance\n';
const NEIGHBOUR = 'untouched\n';
const LIMIT_BYTES = 1000;
const LAST_LINE = 'line-2999';
/** How long a command's background child sleeps before it leaves its marker, and how long we look. */
const BACKGROUND_MS = 1000;
const LOOK_AFTER_MS = 1500;

interface Observed {
  write?: { target: string; neighbour: string; entries: string[] };
  timeoutMarker?: boolean;
  cancelMarker?: boolean;
}

function lent(capabilities: Record<string, unknown>): { write: boolean; terminal: boolean } {
  const fs = isObject(capabilities.fs) ? capabilities.fs : {};
  return { write: fs.writeTextFile === true, terminal: capabilities.terminal === true };
}

export const editor: Scenario = {
  name: 'editor',
  summary:
    'for a client that lends them (§7.5): fs/writeTextFile of a workspace file, and terminal/run of a command a variable is kept from, one with too much output, one past its timeout and one cancelled',
  async play(run) {
    const send = phases(run);
    const { write, terminal } = lent(run.capabilities);
    if (!write && !terminal) return answered(send, 'The client lends no files and no terminal.');
    const dir = realpathSync(mkdtempSync(join(run.workspaceRoot, '.santra-conformance-')));
    // Removed even when the scripted server exits mid-scenario (its deadline, a client that left).
    const remove = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', remove);
    try {
      if (write) await writeThroughEditor(run, send, dir);
      if (terminal) await runInTerminal(run, send, dir);
    } finally {
      process.off('exit', remove);
      remove();
    }
    return answered(send, 'The editor saved the file and ran the commands.');
  },
  evaluate: ({ transcript }) => [writeFinding(transcript), terminalFinding(transcript)],
};

function observe(run: RunContext, observed: Observed): void {
  run.note(`${OBSERVED}${JSON.stringify(observed)}`);
}

/** How a tool call ends: the `tool_result` summary and output of each status. */
const ENDINGS = {
  ok: { summary: 'done', output: 'Done.' },
  cancelled: { summary: 'cancelled', output: 'Cancelled.' },
} as const;

/**
 * A tool call around a request, so a client shows the request where it belongs: `summary` is the
 * call's (the tool and its args by default), `status` how it ended.
 */
async function tool<T>(
  send: Send,
  id: string,
  name: string,
  args: unknown,
  act: () => Promise<T>,
  {
    summary = `${name} ${JSON.stringify(args)}`,
    status = 'ok',
  }: { summary?: string; status?: keyof typeof ENDINGS } = {},
): Promise<T> {
  send('tool_call', { toolCallId: id, toolName: name, args, summary });
  const outcome = await act();
  send('tool_result', { toolCallId: id, toolName: name, status, ...ENDINGS[status] });
  return outcome;
}

async function writeThroughEditor(run: RunContext, send: Send, dir: string): Promise<void> {
  const path = join(dir, 'target.txt');
  writeFileSync(path, BEFORE);
  writeFileSync(join(dir, 'neighbour.txt'), NEIGHBOUR);
  await tool(send, 'toolu_write', 'str_replace', { path }, async () => {
    await run.request('write-1', 'fs/writeTextFile', { sessionId: RUN.sessionId, path, text: WRITTEN });
    // At the moment of the answer: the file must hold the text already (SANTRA-FILES-007).
    observe(run, {
      write: {
        target: readFileSync(path, 'utf8'),
        neighbour: readFileSync(join(dir, 'neighbour.txt'), 'utf8'),
        entries: readdirSync(dir).sort(),
      },
    });
  });
}

/** `terminal/run` params for `command` in `dir`. */
function terminalParams(id: string, command: string, dir: string, overrides: Record<string, unknown> = {}) {
  return {
    ...RUN,
    agentId: 'orchestrator',
    toolCallId: id,
    command,
    cwd: dir,
    env: {},
    unsetEnv: [SECRET_VARIABLE],
    timeoutMs: 20_000,
    outputByteLimit: 65_536,
    ...overrides,
  };
}

/** A command whose background child leaves `marker` unless it is killed with the command. */
const outliving = (marker: string) => `(sleep ${BACKGROUND_MS / 1000}; touch ${marker}) & sleep 10`;

async function runInTerminal(run: RunContext, send: Send, dir: string): Promise<void> {
  const request = (id: string, command: string, overrides?: Record<string, unknown>) =>
    tool(send, id, 'run_command', { command }, () =>
      run.request(id, 'terminal/run', terminalParams(id, command, dir, overrides)),
    );
  await request('term-env', `printf '%s\\n' "\${${SECRET_VARIABLE}-removed}"`);
  await request('term-limit', 'i=0; while [ $i -lt 3000 ]; do echo "line-$i"; i=$((i+1)); done', {
    outputByteLimit: LIMIT_BYTES,
  });
  await request('term-timeout', outliving('timeout-marker'), { timeoutMs: 300 });
  await delay(LOOK_AFTER_MS);
  observe(run, { timeoutMarker: existsSync(join(dir, 'timeout-marker')) });

  const id = 'term-cancel';
  const command = outliving('cancel-marker');
  await tool(
    send,
    id,
    'run_command',
    { command },
    async () => {
      void run.request(id, 'terminal/run', terminalParams(id, command, dir));
      await delay(300);
      run.cancel(id);
    },
    { summary: command, status: 'cancelled' },
  );
  await delay(LOOK_AFTER_MS);
  observe(run, { cancelMarker: existsSync(join(dir, 'cancel-marker')) });
}

function observations(transcript: WireEntry[]): Observed {
  return Object.assign(
    {},
    ...transcript
      .filter((e) => e.from === 'note' && (e.text ?? '').startsWith(OBSERVED))
      .map((e) => JSON.parse((e.text ?? '').slice(OBSERVED.length)) as Observed),
  ) as Observed;
}

/** The server's request `id` of `method`, if it was sent, and the client's answer to it. */
function exchange(
  transcript: WireEntry[],
  method: string,
  id: string,
): { sent: boolean; answer?: RpcMessage } {
  const request = serverRequests(transcript, method).find((r) => sameId(r.request.message.id, id));
  const answer = request?.responses[0]?.message;
  return answer === undefined ? { sent: request !== undefined } : { sent: true, answer };
}

function writeFinding(transcript: WireEntry[]): Finding {
  const { sent, answer } = exchange(transcript, 'fs/writeTextFile', 'write-1');
  if (!sent) return notApplicable('SANTRA-FILES-007', 'the client declared no capabilities.fs.writeTextFile');
  if (answer === undefined) return fail('SANTRA-FILES-007', 'fs/writeTextFile was never answered');
  if (isObject(answer.error))
    return notApplicable(
      'SANTRA-FILES-007',
      `the client declined fs/writeTextFile: ${JSON.stringify(answer.error)}`,
    );
  const problems = validateDefinition('FsWriteTextFileResult', answer.result, 'result');
  const seen = observations(transcript).write;
  // The client has no buffer of the file (the server cannot make it open one): it either saved the
  // text anyway or, as SANTRA-FILES-007 lets it, left the file to the server (SANTRA-FILES-006).
  if (seen?.target !== WRITTEN && seen?.target !== BEFORE)
    problems.push(
      `when the answer came, the file held ${JSON.stringify(seen?.target)}: neither the text ${JSON.stringify(WRITTEN)} nor, left to the server, what it held before`,
    );
  if (seen?.neighbour !== NEIGHBOUR)
    problems.push(`the file beside it was changed to ${JSON.stringify(seen?.neighbour)}`);
  const entries = JSON.stringify(seen?.entries);
  if (entries !== JSON.stringify(['neighbour.txt', 'target.txt']))
    problems.push(`the directory held ${entries} afterwards, not only the two files it had`);
  return fromProblems(
    'SANTRA-FILES-007',
    problems,
    'the file held the text (or, left to the server, what it held) when the answer came, and nothing else changed',
  );
}

function terminalFinding(transcript: WireEntry[]): Finding {
  const answers = ['term-env', 'term-limit', 'term-timeout'].map((id) => ({
    id,
    ...exchange(transcript, 'terminal/run', id),
  }));
  if (!answers.some((a) => a.sent))
    return notApplicable('SANTRA-FILES-010', 'the client declared no capabilities.terminal');
  const problems: string[] = [];
  const results = new Map<string, Record<string, unknown>>();
  for (const { id, answer } of answers) {
    if (answer === undefined || !isObject(answer.result)) {
      problems.push(
        `terminal/run ${id} was answered with ${JSON.stringify(answer?.error ?? 'nothing')}, not a result`,
      );
      continue;
    }
    problems.push(...validateDefinition('TerminalRunResult', answer.result, `terminal/run ${id} result`));
    results.set(id, answer.result);
  }
  const output = (id: string) => {
    const text = results.get(id)?.output;
    return typeof text === 'string' ? text : '';
  };
  if (results.has('term-env') && output('term-env').includes(SECRET_VALUE))
    problems.push(
      `${SECRET_VARIABLE}, which unsetEnv named, reached the command: its output shows the value`,
    );
  const limited = output('term-limit');
  if (results.has('term-limit') && Buffer.byteLength(limited) > LIMIT_BYTES)
    problems.push(`${Buffer.byteLength(limited)} bytes of output, over outputByteLimit ${LIMIT_BYTES}`);
  if (
    results.has('term-limit') &&
    (!limited.trimEnd().endsWith(LAST_LINE) || results.get('term-limit')?.truncated !== true)
  )
    problems.push(
      `the cut output does not keep the end (${LAST_LINE}) with truncated true: …${JSON.stringify(limited.slice(-40))}`,
    );
  if (results.has('term-timeout') && results.get('term-timeout')?.timedOut !== true)
    problems.push(
      `a command past its timeoutMs was answered with timedOut ${JSON.stringify(results.get('term-timeout')?.timedOut)}`,
    );
  const seen = observations(transcript);
  if (seen.timeoutMarker !== false)
    problems.push(
      'what the command started lived on after its timeout: its background child left its marker',
    );
  if (seen.cancelMarker !== false)
    problems.push(
      'what the command started lived on after $/cancelRequest: its background child left its marker',
    );
  return fromProblems(
    'SANTRA-FILES-010',
    problems,
    'the variable was kept out, the output cut to the limit keeping the end, and a timed-out and a cancelled command were killed with what they started',
  );
}
