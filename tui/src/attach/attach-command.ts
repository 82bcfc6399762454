/**
 * `santra attach <session> [--after-seq N] [--watch] [--until-done] [--verbose] [--cwd DIR]`: join a
 * session that runs elsewhere — the TUI in another terminal, a `santra worker` job — through a
 * server of its own sharing the store (`session/subscribe`, protocol §10.11, docs/sessions.md).
 * What the session missed is shown first, then what it does live, as `santra -p` shows a run: the
 * answer on stdout, what the agents do on stderr. On a terminal its approvals and questions are
 * asked here as `santra -p` asks them; the first answer, here or in the session's own client, is
 * the one taken, and the other is withdrawn. `--watch` (and stdin that is not a terminal) only
 * watches: nothing is answered from here.
 *
 * Ends on Ctrl-C, or with `--until-done` when a run of the session ends. Exit codes: 0 ended as
 * asked (with --until-done: the run completed), 1 the session could not be joined or the run did
 * not complete, 2 a usage error, 130 Ctrl-C.
 */
import { parseArgs } from 'node:util';
import type { Phase, ResultOf } from '#protocol';
import { findWorkplace } from '../client/project-root.ts';
import { isDirectory, serverPathFor, startServer } from '../client/server-process.ts';
import { PrintError, ServerSession } from '../client/session.ts';
import { Approvals } from '../print/approvals.ts';
import { EXIT } from '../print/args.ts';
import { cliHint, createOutput, errorLine, verboseLine } from '../print/output.ts';
import { terminalInput } from '../print/terminal.ts';

export const ATTACH_USAGE =
  'santra attach <session id> [--after-seq N] [--watch] [--until-done] [--verbose] [--cwd DIR]';

export interface AttachOptions {
  sessionId: string;
  afterSeq: number;
  watch: boolean;
  untilDone: boolean;
  verbose: boolean;
  cwd: string;
  cwdGiven: boolean;
}

export interface AttachEnvironment {
  serverPath: string;
  clientVersion: string;
}

/** The arguments after `santra attach`: the options, or why they are unusable. */
export function parseAttachArgs(argv: readonly string[], cwd: string): AttachOptions | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        'after-seq': { type: 'string' },
        watch: { type: 'boolean' },
        'until-done': { type: 'boolean' },
        verbose: { type: 'boolean' },
        cwd: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}: ${ATTACH_USAGE}` };
  }
  const [sessionId, ...extra] = parsed.positionals;
  if (sessionId === undefined)
    return { error: `santra attach needs the session id (santra sessions lists them): ${ATTACH_USAGE}` };
  if (extra.length > 0) return { error: `santra attach joins one session; unexpected ${extra.join(' ')}` };
  const afterSeqText = parsed.values['after-seq'];
  const afterSeq = afterSeqText === undefined ? 0 : Number(afterSeqText);
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || afterSeqText?.trim() === '')
    return {
      error: `--after-seq needs a whole number (the seq of the last phase you saw; 0 shows the whole session), not "${afterSeqText ?? ''}"`,
    };
  if (parsed.values.cwd === '') return { error: '--cwd needs a directory' };
  return {
    sessionId,
    afterSeq,
    watch: parsed.values.watch === true,
    untilDone: parsed.values['until-done'] === true,
    verbose: parsed.values.verbose === true,
    cwd: parsed.values.cwd ?? cwd,
    cwdGiven: parsed.values.cwd !== undefined,
  };
}

export async function runAttach(options: AttachOptions, environment: AttachEnvironment): Promise<number> {
  const { stdin, stdout, stderr } = process;
  stdout.on('error', () => {});
  if (!isDirectory(options.cwd)) {
    stderr.write(`santra: --cwd ${options.cwd}: no such directory\n`);
    return EXIT.usage;
  }
  const root = findWorkplace(options.cwd, options.cwdGiven).root;
  const server = startServer(serverPathFor(environment.serverPath, process.env).path, root);
  if (server === undefined) {
    stderr.write('santra: santra-server was not found; run npm run build\n');
    return EXIT.failure;
  }
  // Answering needs a person at a terminal; anything else only watches, so it never wins a race
  // with a refusal nobody made.
  const answering = !options.watch && stdin.isTTY === true;
  const color = stderr.isTTY === true && process.env.NO_COLOR === undefined;
  const output = createOutput('text', (text) => stdout.write(text));
  const say = (line: string) => {
    output.breakLine();
    stderr.write(`${line}\n`);
  };
  const view = phaseView(options, say, (raw, phase) => output.phase(raw, phase));
  const approvals = new Approvals({
    policy: answering ? 'ask' : 'reject',
    ...(answering ? { reader: terminalInput(stdin, stderr) } : {}),
    write: (text) => {
      output.breakLine();
      stderr.write(text);
    },
    color,
  });
  const session = new ServerSession({
    server,
    workspaceRoot: root,
    clientName: 'santra-attach',
    clientVersion: environment.clientVersion,
    capabilities: { approve: answering, ask: answering, diffs: false },
    approvals,
    verbose: options.verbose,
    stderr,
    onPhase: (raw, phase) => {
      // A run that ended before santra attach started is history, not the run it waits for.
      if (view(raw, phase) === 'done' && options.untilDone && (phase?.seq ?? 0) > seqAtStart)
        void unsubscribe();
    },
  });
  let seqAtStart = Number.MAX_SAFE_INTEGER;
  let ending: Promise<unknown> | undefined;
  const unsubscribe = () =>
    (ending ??= session.request('session/unsubscribe', { sessionId: options.sessionId }).catch(() => {}));
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) {
      session.kill();
      process.exit(EXIT.interrupted);
    }
    interrupted = true;
    approvals.withdrawAll();
    void unsubscribe();
  };
  process.on('SIGINT', onSigint);
  try {
    await session.initialize();
    if (options.untilDone) seqAtStart = await lastSeqOf(session, options.sessionId);
    say(
      `santra: attached to ${options.sessionId}${answering ? '' : ' (watching: approvals are answered elsewhere)'}; Ctrl-C detaches`,
    );
    const ended: ResultOf<'session/subscribe'> = await session.request('session/subscribe', {
      sessionId: options.sessionId,
      afterSeq: options.afterSeq,
      answer: answering,
    });
    output.finish();
    say(
      `santra: detached at seq ${ended.lastSeq} (${ended.replayedPhases} phases from the store, ${ended.livePhases} live${ended.answered > 0 ? `, ${ended.answered} answered here` : ''}); santra attach ${options.sessionId} --after-seq ${ended.lastSeq} goes on from there`,
    );
    if (interrupted) return EXIT.interrupted;
    return options.untilDone && view.lastStatus() !== 'completed' ? EXIT.failure : EXIT.ok;
  } catch (error) {
    output.finish();
    say(error instanceof PrintError ? error.message : `santra: ${String(error)}`);
    return EXIT.failure;
  } finally {
    process.off('SIGINT', onSigint);
    await session.close();
  }
}

/** The session's last `seq` as the store has it now (0 when it is not listed: subscribing says why). */
async function lastSeqOf(session: ServerSession, sessionId: string): Promise<number> {
  let cursor: string | undefined;
  do {
    const page = await session.request('session/list', {
      allWorkspaces: true,
      limit: 200,
      ...(cursor === undefined ? {} : { cursor }),
    });
    const found = page.sessions.find((info) => info.sessionId === sessionId);
    if (found !== undefined) return found.lastSeq;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return 0;
}

type PhaseView = ((raw: unknown, phase: Phase | undefined) => 'done' | undefined) & {
  /** How the last run seen ended, if one did. */
  lastStatus(): string | undefined;
};

/**
 * Shows phases as `santra -p` shows a run's (the root agent's answer through `answer`, the rest as
 * lines through `say`), with a line where each run begins and ends. Returns 'done' for the phase
 * that ends a run.
 */
function phaseView(
  options: Pick<AttachOptions, 'verbose'>,
  say: (line: string) => void,
  answer: (raw: unknown, phase: Phase | undefined) => void,
): PhaseView {
  let runId: string | undefined;
  let status: string | undefined;
  const view = (raw: unknown, phase: Phase | undefined): 'done' | undefined => {
    if (phase === undefined) return undefined;
    if (phase.runId !== runId) {
      runId = phase.runId;
      say(`santra: ── run ${phase.runId} ──`);
    }
    answer(raw, phase);
    if (phase.type === 'error') {
      say(errorLine(phase));
      const hint = cliHint(phase);
      if (hint !== undefined) say(hint);
      return undefined;
    }
    if (phase.type === 'complete' && phase.parentAgentId === undefined) {
      status = phase.status;
      say(`santra: ── run ${phase.runId} ended: ${phase.status} (seq ${phase.seq}) ──`);
      return 'done';
    }
    const shown =
      options.verbose ||
      phase.type === 'tool_call' ||
      phase.type === 'tool_result' ||
      phase.type === 'section' ||
      (phase.type === 'status' && phase.level === 'warning');
    const line = shown ? verboseLine(phase) : undefined;
    if (line !== undefined) say(line);
    return undefined;
  };
  return Object.assign(view, { lastStatus: () => status });
}
