/**
 * `santra -p`: one prompt, headless. It reads the prompt, starts santra-server, streams the answer
 * to stdout in the chosen format, answers approvals, handles Ctrl-C, and returns the exit code.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { type ParamsOf, type Phase, type PromptResult } from '#protocol';
import { Approvals, type ApprovalPolicy } from './approvals.ts';
import { EXIT, type PrintOptions } from './args.ts';
import { cliHint, createOutput, errorLine, statusLine, usageLine, verboseLine } from './output.ts';
import { isDirectory, serverArgs, serverPathFor, startServer } from '../client/server-process.ts';
import { findWorkplace, promptCwd } from '../client/project-root.ts';
import { PrintError, ServerSession } from '../client/session.ts';
import { readRerunScript, RecordedAnswers, rerunClient, runsToRerun, type RerunScript } from './rerun.ts';
import { terminalInput } from './terminal.ts';

export interface PrintEnvironment {
  /** The santra-server to start unless SANTRA_SERVER says otherwise. */
  serverPath: string;
  clientVersion: string;
  /** The server, when the caller started it early (while this client was still loading). */
  server?: ChildProcessWithoutNullStreams;
}

/** How a run's end is told to the shell: 0 only for a whole answer. */
function exitCodeOf(result: PromptResult | undefined, budgetStopped: boolean): number {
  if (budgetStopped) return EXIT.budget;
  if (result?.status !== 'completed') return EXIT.failure;
  return result.stopReason === 'max_tokens' || result.stopReason === 'refusal' ? EXIT.incomplete : EXIT.ok;
}

/** Runs `santra -p` with parsed options and resolves with the process exit code. */
export async function runPrint(options: PrintOptions, environment: PrintEnvironment): Promise<number> {
  const code = await run(options, environment);
  // A server started early for a run that never began (a usage error) must not outlive us.
  if (code === EXIT.usage) environment.server?.kill();
  return code;
}

async function run(options: PrintOptions, environment: PrintEnvironment): Promise<number> {
  const { stdin, stdout, stderr } = process;
  // On one terminal, nothing on stderr may continue the answer's line on stdout: every write to
  // stderr (our lines, the approval prompts, the server's log under --verbose) goes through here.
  const shared = stdout.isTTY === true && stderr.isTTY === true;
  let breakLine = () => {};
  const toStderr = (text: string | Uint8Array) => {
    if (shared) breakLine();
    return stderr.write(text);
  };
  const say = (line: string) => void toStderr(`${line}\n`);
  stdout.on('error', () => {}); // A reader that went away (| head) must not crash the run.

  let script: RerunScript | undefined;
  try {
    script = options.replay === undefined ? undefined : readRerunScript(options.replay);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    return EXIT.usage;
  }
  // The newline that echo and heredocs end with is not part of the prompt. A replay has its own.
  const prompt = script !== undefined ? '' : (options.prompt ?? (await readAll(stdin)).trimEnd());
  if (script === undefined && prompt.trim() === '') {
    say('santra: the prompt is empty (nothing was read from stdin)\nRun santra --help for usage.');
    return EXIT.usage;
  }
  if (!isDirectory(options.cwd)) {
    say(
      `santra: --cwd ${options.cwd}: no such directory; give the workspace directory the agent should work in`,
    );
    return EXIT.usage;
  }
  const place = findWorkplace(options.cwd, options.cwdGiven);
  const startCwd = promptCwd(place);
  const { path: serverPath, overridden } = serverPathFor(environment.serverPath, process.env);
  if (!existsSync(serverPath)) {
    say(
      overridden
        ? `santra: SANTRA_SERVER=${process.env.SANTRA_SERVER}: no such file`
        : `santra: santra-server was not found at ${serverPath}; run npm run build, or point SANTRA_SERVER at a server (e.g. server/src/entry/bin.ts)`,
    );
    return EXIT.failure;
  }

  const interactive = stdin.isTTY === true;
  const policy: ApprovalPolicy = options.approveAll ? 'allow' : interactive ? 'ask' : 'reject';
  const color = stderr.isTTY === true && process.env.NO_COLOR === undefined;
  if (options.approveAll) {
    const warning =
      "santra: WARNING: --approve-all: EVERY FILE CHANGE AND EVERY COMMAND THE AGENT PROPOSES WILL BE APPROVED WITHOUT ASKING (changes to protected locations — .git/, .santra/, .agents/, Santra's config, shell start-up files — are still asked on the terminal, or rejected without one).";
    say(color ? `\u001b[1;31m${warning}\u001b[0m` : warning);
  }
  if (script !== undefined) {
    say(
      `santra: replaying ${script.runs.length} prompt${script.runs.length === 1 ? '' : 's'}: the recorded file changes and commands run again in ${place.root}, approved as the recording approved them (protected locations excepted)`,
    );
  }
  const output = createOutput(options.outputFormat, (text) => stdout.write(text));
  breakLine = () => output.breakLine();
  let sawErrorPhase = false;
  /** The run's budget stopped it (an `error` phase of code `budget`, of any agent). */
  let budgetStopped = false;
  const warned = new Set<string>();
  // What stderr shows beside the answer: errors and warnings (retries, skipped files) always; on a
  // terminal also a line per tool call and sub-agent, and the cost at the end; --verbose shows all.
  const progress = stderr.isTTY === true;
  const onPhase = (raw: unknown, phase: Phase | undefined) => {
    output.phase(raw, phase);
    if (phase === undefined) return;
    if (phase.type === 'error') {
      sawErrorPhase = true;
      if (phase.code === 'budget') {
        // Each agent the budget stopped says so; the shell hears it once.
        if (budgetStopped) return;
        budgetStopped = true;
      }
      say(errorLine(phase));
      const hint = cliHint(phase);
      if (hint !== undefined) say(hint);
      return;
    }
    const shown =
      options.verbose ||
      (phase.type === 'status' && phase.level === 'warning') ||
      (progress && (phase.type === 'tool_call' || phase.type === 'section'));
    if (!shown) return;
    const line = verboseLine(phase);
    if (line === undefined) return;
    // The same warning at every run of a replay (a model Santra does not list, a skipped agent
    // file) is said once.
    if (phase.type === 'status' && phase.level === 'warning' && phase.key === undefined) {
      if (warned.has(line)) return;
      warned.add(line);
    }
    say(line);
  };

  const approvals = new Approvals({
    policy,
    ...(interactive ? { reader: terminalInput(stdin, stderr) } : {}),
    write: (text) => void toStderr(text),
    color,
  });
  const recorded = script === undefined ? undefined : new RecordedAnswers(approvals, say);
  const session = new ServerSession({
    server:
      environment.server ??
      (startServer(serverPath, place.root, serverArgs(options)) as ChildProcessWithoutNullStreams),
    workspaceRoot: place.root,
    clientVersion: environment.clientVersion,
    capabilities: {
      approve: true,
      ask: interactive || script?.runs.some((run) => run.questions.length > 0) === true,
      diffs: false,
    },
    approvals: recorded ?? approvals,
    verbose: options.verbose,
    stderr: lineBreaking(toStderr),
    onPhase,
  });

  // Ctrl-C while the prompt runs cancels it through the protocol; at any other time, or the second
  // time, santra stops at once.
  let running = false;
  let interrupted = false;
  let giveUp: () => void = () => {};
  const gaveUp = new Promise<undefined>((resolve) => (giveUp = () => resolve(undefined)));
  const onSigint = () => {
    if (interrupted || !running) {
      say('\nsantra: stopped');
      session.kill();
      stdout.write('', () => process.exit(EXIT.interrupted));
      return;
    }
    interrupted = true;
    say('\nsantra: cancelling the run (press Ctrl-C again to quit at once)');
    session.cancelPrompt();
    approvals.withdrawAll();
    setTimeout(giveUp, 2000).unref();
  };
  process.on('SIGINT', onSigint);

  let code: number;
  try {
    await session.initialize();
    const sessionId = await sessionToContinue(session, options);
    /** Runs one prompt and reports how it ended; undefined when the server would not stop. */
    const send = async (params: ParamsOf<'prompt'>): Promise<PromptResult | undefined> => {
      running = true;
      sawErrorPhase = false;
      const result: PromptResult | undefined = await Promise.race([session.prompt(params), gaveUp]);
      running = false;
      if (result === undefined) {
        say('santra: the server did not answer the cancellation within 2 s; stopping it');
      } else {
        output.result(result);
        output.finish();
        const line = interrupted ? undefined : statusLine(result, sawErrorPhase);
        if (line !== undefined) say(line);
        if (options.verbose || progress) say(usageLine(result));
      }
      return result;
    };
    if (script !== undefined && recorded !== undefined) {
      const client = rerunClient(session, send);
      const asRecorded = await runsToRerun(script, recorded, client, say, () => interrupted);
      code = interrupted ? EXIT.interrupted : asRecorded ? EXIT.ok : EXIT.failure;
    } else {
      const result = await send({
        text: prompt,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.fallbackModels === undefined ? {} : { fallbackModels: options.fallbackModels }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(startCwd === undefined ? {} : { cwd: startCwd }),
        ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
        ...(options.permissionMode === undefined ? {} : { permissionMode: options.permissionMode }),
      });
      code = interrupted ? EXIT.interrupted : exitCodeOf(result, budgetStopped);
    }
  } catch (error) {
    output.finish();
    say(error instanceof PrintError ? error.message : `santra: ${String(error)}`);
    code = interrupted ? EXIT.interrupted : EXIT.failure;
  } finally {
    running = false;
    output.finish();
    await session.close();
    process.off('SIGINT', onSigint);
  }
  return code;
}

/** A stream whose writes go through `write` (which first ends the answer's line on a shared terminal). */
function lineBreaking(write: (chunk: Uint8Array) => boolean): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk);
      callback();
    },
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The saved session `--resume` or `--continue` names, loaded in the server; undefined for a new one. */
async function sessionToContinue(session: ServerSession, options: PrintOptions): Promise<string | undefined> {
  let sessionId = options.resume;
  if (options.continueLatest) {
    const latest = (await session.sessions(1)).sessions[0];
    if (latest === undefined) {
      throw new PrintError(
        'santra: --continue: this project has no saved session yet; run santra -p "…" without it to start one',
      );
    }
    sessionId = latest.sessionId;
  }
  // --resume takes a name or an id prefix too: the server says which session it is (§10.12).
  if (sessionId !== undefined) return (await session.resume(sessionId)).session.sessionId;
  return sessionId;
}
