/**
 * `santra doctor` (doctor.ts) asks the same way, and prints what `initialize` says of the sandbox.
 * `santra models`, `santra agents` and `santra sessions`: what a command-line user can name with
 * `--model`, `--agent` and `--resume`, from the server (model/list, agents/list, session/list),
 * as a table or, with `--json`, as the protocol's result. `santra sessions --latest` keeps the
 * newest session only; `--path` prints the session files instead (session-files.ts).
 */
import type { InitializeResult, ResultOf } from '#protocol';

type ModelListResult = ResultOf<'model/list'>;
type AgentsListResult = ResultOf<'agents/list'>;
type HooksListResult = ResultOf<'hooks/list'>;
type SessionListResult = ResultOf<'session/list'>;
import { Approvals } from './approvals.ts';
import { doctorReport } from './doctor.ts';
import { EXIT, type ListOptions } from './args.ts';
import { formatUsd } from './output.ts';
import { findWorkplace } from '../client/project-root.ts';
import { isDirectory, serverPathFor, startServer } from '../client/server-process.ts';
import { PrintError, ServerSession } from '../client/session.ts';
import { sessionFile, sessionsDir } from '../client/session-files.ts';

export interface ListEnvironment {
  serverPath: string;
  clientVersion: string;
}

/**
 * A session of santra-server for a command no person answers (listing, importing): no
 * capabilities, every approval rejected, no phases shown. Undefined, said on `stderr`, when there
 * is no server to start.
 */
export function unattendedSession(
  environment: ListEnvironment,
  workspaceRoot: string,
  stderr: NodeJS.WritableStream,
): ServerSession | undefined {
  const server = startServer(serverPathFor(environment.serverPath, process.env).path, workspaceRoot);
  if (server === undefined) {
    stderr.write('santra: santra-server was not found; run npm run build\n');
    return undefined;
  }
  return new ServerSession({
    server,
    workspaceRoot,
    clientVersion: environment.clientVersion,
    capabilities: {},
    approvals: new Approvals({ policy: 'reject', write: () => {}, color: false }),
    verbose: false,
    stderr,
    onPhase: () => {},
  });
}

/**
 * Runs `work` on an unattended session of the project `options.cwd` is in, once initialized: what
 * `santra sessions`, `models`, `agents`, `hooks`, `doctor`, `skills`, `memory` and `mcp` share. A
 * missing directory is a usage error, a failure is said on stderr (exit 1), and the server is
 * closed whatever happens.
 */
export async function withProjectSession(
  options: { cwd: string; cwdGiven: boolean },
  environment: ListEnvironment,
  work: (session: ServerSession, initialized: InitializeResult) => Promise<number>,
): Promise<number> {
  const { stderr } = process;
  if (!isDirectory(options.cwd)) {
    stderr.write(`santra: --cwd ${options.cwd}: no such directory\n`);
    return EXIT.usage;
  }
  const place = findWorkplace(options.cwd, options.cwdGiven);
  const session = unattendedSession(environment, place.root, stderr);
  if (session === undefined) return EXIT.failure;
  try {
    return await work(session, await session.initialize());
  } catch (error) {
    stderr.write(`${error instanceof PrintError ? error.message : `santra: ${String(error)}`}\n`);
    return EXIT.failure;
  } finally {
    await session.close();
  }
}

export async function runList(options: ListOptions, environment: ListEnvironment): Promise<number> {
  const { stdout, stderr } = process;
  return withProjectSession(options, environment, async (session, initialized) => {
    if (options.what === 'doctor') {
      const report = doctorReport(initialized.capabilities.sandbox);
      stdout.write(options.json ? `${JSON.stringify(report.json)}\n` : report.text);
      return report.ok ? EXIT.ok : EXIT.failure;
    }
    if (options.what === 'models') {
      const result = await session.models();
      if (result.configProblem !== undefined)
        stderr.write(
          `santra: warning: ${result.configProblem}\nPrompts are refused until the file is fixed.\n`,
        );
      stdout.write(options.json ? `${JSON.stringify(result)}\n` : modelTable(result));
    } else if (options.what === 'agents') {
      const result = await session.agents();
      stdout.write(options.json ? `${JSON.stringify(result)}\n` : agentTable(result));
    } else if (options.rename !== undefined) {
      const { session: renamed } = await session.request('session/rename', {
        sessionId: options.rename.session,
        name: options.rename.name,
      });
      stdout.write(
        options.json
          ? `${JSON.stringify({ session: renamed })}\n`
          : renamed.name === undefined
            ? `${renamed.sessionId} has no name now.\n`
            : `${renamed.sessionId} is named ${renamed.name}: santra -p --resume ${renamed.name} "…" continues it.\n`,
      );
    } else if (options.what === 'hooks') {
      const result = await session.request('hooks/list', {});
      stdout.write(options.json ? `${JSON.stringify(result)}\n` : hookTable(result));
    } else {
      const listed = await session.sessions(options.latest === true ? 1 : 200);
      for (const warning of listed.warnings) stderr.write(`santra: ${warning}\n`);
      const { nextCursor: _more, ...whole } = listed;
      const result = options.latest === true ? { ...whole, sessions: listed.sessions.slice(0, 1) } : listed;
      if (options.path === true) {
        const { paths, problem } = sessionPaths(result.sessions, sessionsDir(process.env));
        stdout.write(paths.map((path) => `${path}\n`).join(''));
        if (problem === undefined) return EXIT.ok;
        stderr.write(`santra: ${problem}\n`);
        return EXIT.failure;
      }
      stdout.write(options.json ? `${JSON.stringify(result)}\n` : sessionTable(result));
    }
    return EXIT.ok;
  });
}

/**
 * `--path`: each session's file under `dir` (`<config dir>/sessions`), one a line, and what went
 * wrong: no session at all, or sessions without a file (kept in a shared store), which make the
 * exit code 1.
 */
export function sessionPaths(
  sessions: SessionListResult['sessions'],
  dir: string,
): { paths: string[]; problem?: string } {
  if (sessions.length === 0)
    return { paths: [], problem: 'no saved sessions in this project yet: santra -p "…" starts one' };
  const paths: string[] = [];
  const missing: string[] = [];
  for (const info of sessions) {
    const path = sessionFile(dir, info.sessionId);
    if (path === undefined) missing.push(info.sessionId);
    else paths.push(path);
  }
  if (missing.length === 0) return { paths };
  const which = missing.length === 1 ? `${missing[0]} has` : `${missing.length} sessions have`;
  return {
    paths,
    problem: `${which} no session file under ${dir}: a session kept in a shared store (sessions.store: Redis, PostgreSQL) is not a file. To replay one, write it to a file with session/export and "format": "json" (docs/sessions.md)`,
  };
}

/** Models grouped by provider: usable ones first, with context size and prices. */
export function modelTable(result: ModelListResult): string {
  const lines: string[] = [];
  lines.push(
    result.current === ''
      ? 'No model is configured yet: set a provider key (see docs/configuration.md).'
      : `Current: ${result.current}`,
  );
  const providers = [...new Set(result.models.map((model) => model.provider))];
  providers.sort((a, b) => Number(configured(result, b)) - Number(configured(result, a)));
  for (const provider of providers) {
    const models = result.models.filter((model) => model.provider === provider);
    lines.push('', `${provider}${configured(result, provider) ? '' : '  (no key set)'}`);
    for (const model of models) {
      const price =
        model.inputUsdPerMTok === undefined || model.outputUsdPerMTok === undefined
          ? ''
          : `  ${formatUsd(model.inputUsdPerMTok)} in / ${formatUsd(model.outputUsdPerMTok)} out per M tokens`;
      const mark = model.ref === result.current ? '*' : ' ';
      lines.push(
        `${mark} ${model.ref.padEnd(44)} ${contextSize(model.contextWindow).padStart(5)} context${price}`,
      );
    }
  }
  lines.push('', 'Use one with --model provider/model. A model not listed is sent to its provider as is.');
  return `${lines.join('\n')}\n`;
}

export function agentTable(result: AgentsListResult): string {
  const lines = result.agents.map(
    (agent) =>
      `${agent.id.padEnd(20)} ${agent.description.split('\n')[0] ?? ''}${agent.source === 'builtin' ? '' : `  (${agent.source})`}`,
  );
  for (const problem of result.problems)
    lines.push(
      `skipped ${problem.file}${problem.field === undefined ? '' : ` (${problem.field})`}: ${problem.message}`,
    );
  lines.push('', 'Use one with --agent id.');
  return `${lines.join('\n')}\n`;
}

/** The hooks, event by event: matcher, command, where it comes from; untrusted project hooks marked. */
export function hookTable(result: HooksListResult): string {
  const lines: string[] = [];
  if (result.hooks.length === 0)
    lines.push(
      'No hooks. Add a "hooks" block (Claude Code\'s schema) to your config, or to .santra/settings.json.',
    );
  for (const hook of result.hooks) {
    const where =
      hook.source === 'user'
        ? hook.file
        : `${hook.file}${hook.trusted ? ' (trusted)' : ' (not trusted: asked for when it first fires; it does not run until then)'}`;
    lines.push(
      `${hook.event.padEnd(16)} ${(hook.matcher === undefined || hook.matcher === '' ? '*' : hook.matcher).padEnd(14)} ${hook.command}`,
      `${''.padEnd(16)} ${''.padEnd(14)} timeout ${hook.timeoutSeconds} s · ${where}`,
    );
  }
  for (const problem of result.problems) lines.push(`problem: ${problem}`);
  return `${lines.join('\n')}\n`;
}

function configured(result: ModelListResult, provider: string): boolean {
  return result.models.some((model) => model.provider === provider && model.configured);
}

function contextSize(tokens: number): string {
  return tokens >= 1_000_000 ? `${tokens / 1_000_000}M` : `${Math.round(tokens / 1000)}k`;
}

/** Saved sessions, newest first: id, when, size and cost, title; how to continue one. */
export function sessionTable(result: SessionListResult): string {
  if (result.sessions.length === 0)
    return 'No saved sessions in this project yet: santra -p "…" starts one.\n';
  const lines = result.sessions.map((info) => {
    const when = info.updatedAt.slice(0, 16).replace('T', ' ');
    const size = `${info.messageCount} msg`.padStart(8);
    // An imported session costs nothing here until it is continued (santra import).
    const cost = info.imported !== undefined && info.costUsd === 0 ? 'imported' : formatUsd(info.costUsd);
    const name = info.name === undefined ? '' : `[${info.name}] `;
    return `${info.sessionId}  ${when}  ${size}  ${cost.padStart(8)}  ${name}${info.title}`;
  });
  lines.push(
    '',
    'Continue one: santra -p --resume <id> "…" (or its name); the latest: santra -p --continue "…"; name one: santra sessions name <id> <name>',
  );
  return `${lines.join('\n')}\n`;
}
