/**
 * `santra send [--session ID|NAME] [--source NAME] [--cwd DIR] "text"`: delivers an event from
 * outside — a CI failure, a file watcher, a chat bot — to a session (`session/event`, protocol
 * §10.14, docs/sessions.md), through a server of its own sharing the store. A session that runs in
 * another server (the TUI in another terminal) gets it over its live channel; one nobody runs gets
 * it in its saved conversation. Without --session: the project's latest session. `-` as the text
 * reads it from stdin, so a script can pipe a log in.
 *
 * Prints one line saying what became of the event. Exit codes: 0 delivered, 1 it could not be
 * (no such session, the store is down), 2 a usage error.
 */
import { parseArgs } from 'node:util';
import type { ResultOf } from '#protocol';
import { findWorkplace } from '../client/project-root.ts';
import { isDirectory, serverPathFor, startServer } from '../client/server-process.ts';
import { PrintError } from '../client/print-error.ts';
import { ServerSession } from '../client/session.ts';
import { Approvals } from '../print/approvals.ts';
import { EXIT } from '../print/args.ts';

export const SEND_USAGE =
  'santra send [--session ID|NAME] [--source NAME] [--cwd DIR] "text" (or - to read stdin)';

/** The most an event may say (the protocol's limit). */
const MAX_TEXT = 16_000;

export interface SendOptions {
  /** Undefined: the project's latest session. */
  session: string | undefined;
  source: string | undefined;
  /** The text, or '-' to read stdin. */
  text: string;
  cwd: string;
  cwdGiven: boolean;
}

export interface SendEnvironment {
  serverPath: string;
  clientVersion: string;
}

const DELIVERED: Record<ResultOf<'session/event'>['delivered'], string> = {
  queued: 'the running prompt reads it at its next turn',
  started: 'it started a turn of the session',
  saved: 'it is in the conversation; the next prompt reads it',
  relayed: 'handed to the server running the session',
};

/** The arguments after `santra send`: the options, or why they are unusable. */
export function parseSendArgs(argv: readonly string[], cwd: string): SendOptions | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        session: { type: 'string' },
        source: { type: 'string' },
        cwd: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}: ${SEND_USAGE}` };
  }
  const { positionals, values } = parsed;
  if (positionals.length === 0) return { error: `santra send needs the event's text: ${SEND_USAGE}` };
  if (positionals.length > 1)
    return {
      error: `santra send takes the text as one argument (quote it): ${SEND_USAGE}`,
    };
  const text = positionals[0] as string;
  if (text.trim() === '') return { error: 'santra send: the text is empty; say what happened' };
  if (values.session === '')
    return { error: '--session needs a session id or name (santra sessions lists them)' };
  if (values.cwd === '') return { error: '--cwd needs a directory' };
  return {
    session: values.session,
    source: values.source,
    text,
    cwd: values.cwd ?? cwd,
    cwdGiven: values.cwd !== undefined,
  };
}

export async function runSend(options: SendOptions, environment: SendEnvironment): Promise<number> {
  const { stdout, stderr } = process;
  if (!isDirectory(options.cwd)) {
    stderr.write(`santra: --cwd ${options.cwd}: no such directory\n`);
    return EXIT.usage;
  }
  const text = options.text === '-' ? await readStdin() : options.text;
  if (text.trim() === '') {
    stderr.write('santra send: stdin was empty; say what happened\n');
    return EXIT.usage;
  }
  if (text.length > MAX_TEXT) {
    stderr.write(
      `santra send: the event is ${text.length} characters; at most ${MAX_TEXT} are taken. Send the part that matters (the failing test, the last lines of the log).\n`,
    );
    return EXIT.usage;
  }
  const root = findWorkplace(options.cwd, options.cwdGiven).root;
  const server = startServer(serverPathFor(environment.serverPath, process.env).path, root);
  if (server === undefined) {
    stderr.write('santra: santra-server was not found; run npm run build\n');
    return EXIT.failure;
  }
  const session = new ServerSession({
    server,
    workspaceRoot: root,
    clientName: 'santra-send',
    clientVersion: environment.clientVersion,
    // Nothing is asked of this client: it sends and goes.
    capabilities: { approve: false, ask: false, diffs: false },
    approvals: new Approvals({ policy: 'reject', write: (line) => stderr.write(line), color: false }),
    verbose: false,
    stderr,
    // What the session does is not shown here: `santra attach` watches it.
    onPhase: () => {},
  });
  try {
    await session.initialize();
    const sessionId = options.session ?? (await latestSession(session));
    const result = await session.request('session/event', {
      sessionId,
      text,
      ...(options.source === undefined ? {} : { source: options.source }),
    });
    stdout.write(`sent ${result.eventId} to ${result.sessionId}: ${DELIVERED[result.delivered]}\n`);
    return EXIT.ok;
  } catch (error) {
    stderr.write(`${error instanceof PrintError ? error.message : `santra send: ${String(error)}`}\n`);
    return EXIT.failure;
  } finally {
    await session.close();
  }
}

/** The project's latest session, as `--continue` takes it. */
async function latestSession(session: ServerSession): Promise<string> {
  const { sessions } = await session.request('session/list', { limit: 1 });
  const latest = sessions[0]?.sessionId;
  if (latest === undefined)
    throw new PrintError(
      'santra send: this project has no session yet; start one with santra, or name one with --session',
    );
  return latest;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\s+$/, '');
}
