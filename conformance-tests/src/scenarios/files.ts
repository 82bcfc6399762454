/**
 * §7.5 files and commands through the client: the suite lends the server its "buffers"
 * (`fs/readTextFile`, `fs/writeTextFile`) and its "terminal" (`terminal/run`) and checks that the
 * server reads, writes and runs through them only where it may, with exactly what was approved,
 * and that the disk and the run stay right whatever the client answers.
 */
import { JsonRpcErrorCodes } from '#protocol';
import { existsSync, realpathSync, symlinkSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { FAKE_ANTHROPIC_KEY, type InitializeOptions, type ScenarioContext } from '../run/context.ts';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { fileIn, prompt, requestsOf, sentToModel, str, toolResults } from './helpers.ts';

/** The editor features a client lends, as `initialize` declares them. */
interface Lent {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
}

function lending(lent: Lent): InitializeOptions {
  return { capabilities: { ...lent } };
}

/** The absolute path of `path` in the workspace with every symbolic link resolved. */
function resolved(ctx: ScenarioContext, path: string): string {
  return realpathSync(join(ctx.workspace, path));
}

/** A RequestFailed answer to the server's request `message`. */
function declined(message: Json, why: string): Json {
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: JsonRpcErrorCodes.RequestFailed, message: why, data: { retryable: false } },
  };
}

/** What is wrong with one `fs/readTextFile` path: it must name an existing workspace file, links resolved. */
function readPathProblem(ctx: ScenarioContext, path: unknown): string | undefined {
  if (typeof path !== 'string' || !isAbsolute(path)) return `${JSON.stringify(path)} is not absolute`;
  if (!existsSync(path)) return `${path} does not exist`;
  if (realpathSync(path) !== path) return `${path} is not link-resolved (${realpathSync(path)})`;
  const root = realpathSync(ctx.workspace);
  if (!path.startsWith(root + sep)) return `${path} is outside the workspace ${root}`;
  return undefined;
}

const TERMINAL_OK = {
  output: 'santra-conformance-terminal-output\n',
  truncated: false,
  exitCode: 0,
  signal: null,
  timedOut: false,
};

const reads: Scenario = {
  name: "files: reads through the client's buffers",
  profile: 'santra',
  covers: ['SANTRA-FILES-001', 'SANTRA-FILES-002', 'SANTRA-FILES-003', 'SANTRA-FILES-005'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('src/real.txt', 'santra-conformance-disk-a\n');
    symlinkSync(join('src', 'real.txt'), join(ctx.workspace, 'link.txt'));
    ctx.writeFile('null.txt', 'santra-conformance-disk-b\n');
    ctx.writeFile('error.txt', 'santra-conformance-disk-c\n');
    ctx.writeFile('invalid.txt', 'santra-conformance-disk-d\n');
    ctx.writeFile('plain.txt', 'one\ntwo\n');
    ctx.writeFile('outside.txt', 'santra-conformance-outside\n', ctx.home);
    // The workspace is named through a link, so every path the server sends must resolve it too.
    const linkedRoot = join(ctx.home, 'linked-workspace');
    symlinkSync(ctx.workspace, linkedRoot);
    // Declares reading only: the edit below must not come back as fs/writeTextFile.
    const server = await ctx.open({ ...lending({ fs: { readTextFile: true } }), workspace: linkedRoot });
    const answers: Record<string, (message: Json) => unknown> = {
      [resolved(ctx, 'src/real.txt')]: () => ({ text: 'santra-conformance-buffer-a\n' }),
      [resolved(ctx, 'null.txt')]: () => ({ text: null }),
      [resolved(ctx, 'error.txt')]: (message) => declined(message, 'the editor cannot read it'),
      [resolved(ctx, 'invalid.txt')]: () => ({ text: 42 }),
    };
    server.handle('fs/readTextFile', (message) => {
      const answer = answers[str((message.params as Json | undefined)?.path)];
      return answer === undefined ? { text: null } : answer(message);
    });
    server.handle('approve', () => ({ decision: 'allow' }));
    await ctx.script(
      santra.readFile({ path: 'link.txt' }),
      santra.readFile({ path: 'null.txt' }),
      santra.readFile({ path: 'error.txt' }),
      santra.readFile({ path: 'invalid.txt' }),
      santra.readFile({ path: 'missing.txt' }),
      santra.readFile({ path: join(ctx.home, 'outside.txt') }),
      santra.strReplace({ path: 'plain.txt', oldStr: 'two', newStr: 'deux' }),
      { text: 'Read them all.' },
    );
    const run = await prompt(server, santra.executor('Read the files'));
    const asked = requestsOf(server, 'fs/readTextFile');
    const paths = asked.map((p) => p.path);
    const problems = paths.flatMap((path) => readPathProblem(ctx, path) ?? []);
    ctx.check(
      'SANTRA-FILES-001',
      asked.length > 0 && problems.length === 0,
      `fs/readTextFile paths ${JSON.stringify(paths)}${problems.length > 0 ? `: ${problems.join('; ')}` : ''}`,
    );
    ctx.check(
      'SANTRA-FILES-001',
      paths.includes(resolved(ctx, 'src/real.txt')),
      `reading link.txt (a link to src/real.txt) in a workspace named through a link asked for ${JSON.stringify(paths[0])}`,
    );
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-FILES-002',
      told.includes('santra-conformance-buffer-a') && !told.includes('santra-conformance-disk-a'),
      `the model was sent the client's text: ${told.includes('santra-conformance-buffer-a')}, the disk's: ${told.includes('santra-conformance-disk-a')}`,
    );
    const results = toolResults(run.phases).map((r) => r.status);
    for (const [marker, answer] of [
      ['santra-conformance-disk-b', '{"text": null}'],
      ['santra-conformance-disk-c', 'an error answer'],
      ['santra-conformance-disk-d', 'an invalid result {"text": 42}'],
    ] as const)
      ctx.check(
        'SANTRA-FILES-003',
        told.includes(marker) && run.result.status === 'completed',
        `after ${answer} the model was sent the disk's text: ${told.includes(marker)}; tool results ${JSON.stringify(results)}, run ${String(run.result.status)}`,
      );
    const writes = requestsOf(server, 'fs/writeTextFile');
    ctx.check(
      'SANTRA-FILES-005',
      writes.length === 0,
      `a client that declared only fs.readTextFile got ${writes.length} fs/writeTextFile request(s); plain.txt on disk: ${JSON.stringify(fileIn(ctx, 'plain.txt'))}`,
    );
  },
};

const DISK = 'alpha\nbeta on disk\ngamma\n';
const BUFFER = 'alpha\nbeta in buffer\ngamma\nunsaved line\n';
/** BUFFER after the first allowed edit, then after the second. */
const FIRST = 'alpha\nbeta edited\ngamma\nunsaved line\n';
const SECOND = 'alpha\nbeta edited\ngamma\nsaved line\n';

const edits: Scenario = {
  name: "files: edits through the client's buffers",
  profile: 'santra',
  covers: ['SANTRA-FILES-004', 'SANTRA-FILES-005', 'SANTRA-FILES-006'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('edit.txt', DISK);
    const server = await ctx.open(lending({ fs: { readTextFile: true, writeTextFile: true } }));
    const target = resolved(ctx, 'edit.txt');
    // What happened on the wire, in order: each approve's decision and each write.
    const events: string[] = [];
    const approvals: Json[] = [];
    let buffer = BUFFER;
    let diskWhenRejecting: string | undefined;
    server.handle('fs/readTextFile', (message) =>
      (message.params as Json).path === target ? { text: buffer } : { text: null },
    );
    const decisions = ['allow', 'reject', 'allow', 'allow'];
    server.handle('approve', (message) => {
      const decision = decisions[approvals.length] ?? 'reject';
      approvals.push(message.params as Json);
      // The first edit's write was answered without saving; by the next approval it is on disk.
      if (decision === 'reject') diskWhenRejecting = fileIn(ctx, 'edit.txt');
      events.push(`approve ${str((message.params as Json).path)}: ${decision}`);
      return { decision };
    });
    let writes = 0;
    server.handle('fs/writeTextFile', (message) => {
      const params = message.params as Json;
      events.push(`fs/writeTextFile ${str(params.path)}`);
      // The buffer takes the text; the file is never saved, and the second write fails outright.
      buffer = str(params.text);
      return ++writes === 1 ? {} : declined(message, 'the editor could not save it');
    });
    await ctx.script(
      santra.readFile({ path: 'edit.txt' }),
      santra.strReplace({ path: 'edit.txt', oldStr: 'beta in buffer', newStr: 'beta edited' }),
      santra.strReplace({ path: 'edit.txt', oldStr: 'gamma', newStr: 'delta' }),
      santra.strReplace({ path: 'edit.txt', oldStr: 'unsaved line', newStr: 'saved line' }),
      santra.writeFile({ path: 'new.txt', content: 'fresh\n' }),
      { text: 'Edited.' },
    );
    const run = await prompt(server, santra.executor('Edit the file'));
    const statuses = JSON.stringify(toolResults(run.phases).map((r) => r.status));
    const first = approvals[0] ?? {};
    const unified = str((first.diff as Json | undefined)?.unifiedDiff);
    ctx.check(
      'SANTRA-FILES-004',
      unified.includes('-beta in buffer') &&
        unified.includes('+beta edited') &&
        unified.includes(' unsaved line') &&
        !unified.includes('beta on disk'),
      `the diff of an edit of a file whose buffer differs from the disk: ${JSON.stringify(unified)}`,
    );
    const sent = requestsOf(server, 'fs/writeTextFile');
    const expected = [
      'approve edit.txt: allow',
      `fs/writeTextFile ${target}`,
      'approve edit.txt: reject',
      'approve edit.txt: allow',
      `fs/writeTextFile ${target}`,
      'approve new.txt: allow',
    ];
    ctx.check(
      'SANTRA-FILES-005',
      JSON.stringify(events) === JSON.stringify(expected),
      `in order: ${JSON.stringify(events)}; tool results ${statuses}`,
    );
    ctx.check(
      'SANTRA-FILES-005',
      sent[0]?.text === FIRST && sent[1]?.text === SECOND,
      `the approved texts ${JSON.stringify([FIRST, SECOND])}, fs/writeTextFile sent ${JSON.stringify(sent.map((p) => p.text))}`,
    );
    ctx.check(
      'SANTRA-FILES-006',
      diskWhenRejecting === FIRST,
      `after fs/writeTextFile was answered {} without saving, the disk held ${JSON.stringify(diskWhenRejecting)}`,
    );
    ctx.check(
      'SANTRA-FILES-006',
      fileIn(ctx, 'edit.txt') === SECOND,
      `after fs/writeTextFile was answered with an error, the disk held ${JSON.stringify(fileIn(ctx, 'edit.txt'))}`,
    );
  },
};

const commands: Scenario = {
  name: "files: commands in the client's terminal",
  profile: 'santra',
  covers: [
    'SANTRA-FILES-001',
    'SANTRA-FILES-005',
    'SANTRA-FILES-008',
    'SANTRA-FILES-009',
    'SANTRA-FILES-011',
  ],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('plain.txt', 'one\ntwo\n');
    // Declares the terminal only: no file request may come.
    const server = await ctx.open(lending({ terminal: true }));
    const decisions = ['allow', 'reject', 'allow', 'allow', 'allow'];
    const allowed: Json[] = [];
    let asked = 0;
    server.handle('approve', (message) => {
      const decision = decisions[asked++] ?? 'reject';
      if (decision === 'allow') allowed.push(message.params as Json);
      return { decision };
    });
    let runs = 0;
    server.handle('terminal/run', (message) => {
      runs++;
      if (runs === 2) return declined(message, 'the terminal could not start it');
      return runs === 3 ? { output: 'ran' } : TERMINAL_OK;
    });
    await ctx.script(
      santra.runCommand({ command: 'echo santra-conformance > ran-on-server.txt' }),
      santra.runCommand({ command: 'echo santra-conformance > rejected.txt' }),
      santra.runCommand({ command: 'touch after-error.txt' }),
      santra.runCommand({ command: 'touch after-invalid.txt' }),
      santra.strReplace({ path: 'plain.txt', oldStr: 'two', newStr: 'deux' }),
      { text: 'Ran them.' },
    );
    const run = await prompt(server, santra.executor('Run the commands'));
    const sent = requestsOf(server, 'terminal/run');
    const mismatched = sent.filter((params) => {
      const approval = allowed.find((a) => a.toolCallId === params.toolCallId);
      return (
        approval?.kind !== 'command' ||
        approval.command !== (params.approvedCommand ?? params.command) ||
        approval.cwd !== params.cwd
      );
    });
    const shown = JSON.stringify(
      sent.map((p) => ({
        command: p.approvedCommand ?? p.command,
        cwd: p.cwd,
        toolCallId: p.toolCallId,
      })),
    );
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-FILES-008',
      sent.length === 3 &&
        mismatched.length === 0 &&
        !sent.some((p) => str(p.approvedCommand ?? p.command).includes('rejected')),
      `terminal/run ${shown}; the allowed commands ${JSON.stringify(allowed.map((a) => ({ command: a.command, cwd: a.cwd, toolCallId: a.toolCallId })))}; the terminal's output reached the model: ${told.includes(TERMINAL_OK.output.trim())}`,
    );
    const leaky = sent.filter(
      (p) =>
        !(Array.isArray(p.unsetEnv) && p.unsetEnv.includes('ANTHROPIC_API_KEY')) ||
        JSON.stringify(p).includes(FAKE_ANTHROPIC_KEY),
    );
    ctx.check(
      'SANTRA-FILES-009',
      sent.length > 0 && leaky.length === 0,
      `the server was started with ANTHROPIC_API_KEY; terminal/run unsetEnv ${JSON.stringify(sent.map((p) => p.unsetEnv))}${leaky.some((p) => JSON.stringify(p).includes(FAKE_ANTHROPIC_KEY)) ? ', and a request carried the key itself' : ''}`,
    );
    const results = toolResults(run.phases).filter((r) => r.toolName === santra.tools.runCommand);
    for (const [index, file, answer] of [
      [2, 'after-error.txt', 'an error answer'],
      [3, 'after-invalid.txt', 'an invalid result'],
    ] as const)
      ctx.check(
        'SANTRA-FILES-011',
        results[index]?.status === 'error' &&
          fileIn(ctx, file) === undefined &&
          run.result.status === 'completed',
        `after ${answer} to terminal/run: tool_result ${JSON.stringify(results[index])}; ${file} ${fileIn(ctx, file) === undefined ? 'absent' : 'created by the server'}`,
      );
    const fileRequests = server.received.filter((m) => str(m.method).startsWith('fs/')).length;
    ctx.check(
      'SANTRA-FILES-001',
      fileRequests === 0,
      `a client that declared only the terminal got ${fileRequests} fs/* request(s)`,
    );
    ctx.check(
      'SANTRA-FILES-005',
      fileRequests === 0,
      `a client that declared only the terminal got ${fileRequests} fs/* request(s); plain.txt on disk: ${JSON.stringify(fileIn(ctx, 'plain.txt'))}`,
    );
  },
};

/**
 * A command that prints its own environment, base64 between markers (the text the model is sent
 * is JSON, and base64 survives its escaping). Run with the suite's own node, so the server's PATH
 * does not matter.
 */
const ENV_PROBE = `'${process.execPath.replaceAll("'", "'\\''")}' -e 'process.stdout.write("SANTRA-ENV:" + Buffer.from(JSON.stringify(process.env)).toString("base64") + ":SANTRA-ENV")'`;

/** The environment the probe printed in what the model was sent, or undefined when it is not there. */
function probedEnvironment(sent: string): Record<string, string> | undefined {
  const found = /SANTRA-ENV:([A-Za-z0-9+/=]+):SANTRA-ENV/.exec(sent);
  if (found === null) return undefined;
  return JSON.parse(Buffer.from(found[1] as string, 'base64').toString('utf8')) as Record<string, string>;
}

// The shell the server runs a command with sets these itself; a client's terminal does the same.
const SHELL_MADE = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);

/**
 * What `env` and `unsetEnv` leave out of the change from `own` (the server's environment) to
 * `ran` (what a command the server ran itself saw), and what `env` sets differently.
 */
function undeclaredChanges(own: NodeJS.ProcessEnv, ran: Record<string, string>, params: Json): string[] {
  const env = (params.env ?? {}) as Record<string, unknown>;
  const unset = new Set(Array.isArray(params.unsetEnv) ? params.unsetEnv : []);
  const problems: string[] = [];
  for (const [name, value] of Object.entries(ran)) {
    if (SHELL_MADE.has(name) || own[name] === value) continue;
    if (!Object.hasOwn(env, name))
      problems.push(`${name} is set for the server's own commands but not in env`);
    else if (env[name] !== value)
      problems.push(`env sets ${name} differently from the server's own commands`);
  }
  for (const name of Object.keys(own)) {
    if (SHELL_MADE.has(name) || Object.hasOwn(ran, name) || unset.has(name)) continue;
    problems.push(`${name} is kept from the server's own commands but not in unsetEnv`);
  }
  for (const name of Object.keys(env)) {
    if (!SHELL_MADE.has(name) && !Object.hasOwn(ran, name))
      problems.push(`env sets ${name}, which the server's own commands do not get`);
  }
  return problems;
}

const terminalEnvironment: Scenario = {
  name: "files: the terminal's environment is the server's own commands' environment",
  profile: 'santra',
  covers: ['SANTRA-FILES-009'],
  async run(ctx) {
    const { santra } = ctx;
    // The server runs the probe itself, then (a second server) through a client's terminal.
    const own = await ctx.open();
    own.handle('approve', () => ({ decision: 'allow' }));
    await ctx.script(santra.runCommand({ command: ENV_PROBE }), { text: 'Printed it.' });
    await prompt(own, santra.executor('Print the environment'));
    const ran = probedEnvironment(sentToModel(ctx.anthropic.requests));
    if (ran === undefined) {
      ctx.check(
        'SANTRA-FILES-009',
        false,
        `the probe the server ran itself printed nothing the suite could read: ${ENV_PROBE}`,
      );
      return;
    }
    const lent = await ctx.open(lending({ terminal: true }));
    lent.handle('approve', () => ({ decision: 'allow' }));
    lent.handle('terminal/run', () => TERMINAL_OK);
    await ctx.script(santra.runCommand({ command: ENV_PROBE }), { text: 'Printed it.' });
    await prompt(lent, santra.executor('Print the environment'));
    const [params] = requestsOf(lent, 'terminal/run');
    const problems =
      params === undefined ? ['no terminal/run came'] : undeclaredChanges(lent.env, ran, params);
    ctx.check(
      'SANTRA-FILES-009',
      problems.length === 0,
      `the server was started with ${Object.keys(lent.env).sort().join(', ')}; ${problems.join('; ')}`,
    );
  },
};

const nothingLent: Scenario = {
  name: 'files: a client that lends neither files nor a terminal',
  profile: 'santra',
  covers: ['SANTRA-FILES-001', 'SANTRA-FILES-005', 'SANTRA-FILES-008'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('plain.txt', 'one\ntwo\n');
    const server = await ctx.open();
    server.handle('approve', () => ({ decision: 'allow' }));
    await ctx.script(
      santra.readFile({ path: 'plain.txt' }),
      santra.strReplace({ path: 'plain.txt', oldStr: 'two', newStr: 'deux' }),
      santra.runCommand({ command: 'echo santra-conformance > ran-on-server.txt' }),
      { text: 'Done.' },
    );
    await prompt(server, santra.executor('Edit and run'));
    const count = (method: string) => requestsOf(server, method).length;
    ctx.check(
      'SANTRA-FILES-001',
      count('fs/readTextFile') === 0,
      `${count('fs/readTextFile')} fs/readTextFile request(s) to a client that declared no capabilities.fs`,
    );
    ctx.check(
      'SANTRA-FILES-005',
      count('fs/writeTextFile') === 0,
      `${count('fs/writeTextFile')} fs/writeTextFile request(s) to a client that declared no capabilities.fs; plain.txt on disk: ${JSON.stringify(fileIn(ctx, 'plain.txt'))}`,
    );
    ctx.check(
      'SANTRA-FILES-008',
      count('terminal/run') === 0,
      `${count('terminal/run')} terminal/run request(s) to a client that declared no capabilities.terminal; the server ran the command itself: ${fileIn(ctx, 'ran-on-server.txt') !== undefined}`,
    );
  },
};

export const FILES: Scenario[] = [reads, edits, commands, terminalEnvironment, nothingLent];
