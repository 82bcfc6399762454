/**
 * The shell examples of README.md, CONTRIBUTING.md and docs/*.md run here, so a doc example cannot
 * silently break.
 *
 * Every ```sh (or bash, shell) block in those pages carries a marker on the line right before its
 * opening fence, an HTML comment GitHub does not show:
 *
 *   <!-- runnable -->                 each command must exit 0
 *   <!-- runnable exit=N -->          each command that is not a plain assignment must exit N
 *   <!-- not runnable: <reason> -->   skipped, e.g. too slow or recursive (npm install, npm test)
 *
 * A block without a marker fails, so a new example is run unless someone says why not.
 *
 * A runnable block runs in one bash process (so `export` carries to the next line), in a fresh temp
 * workspace holding copies of the docs and package.json and links to dist/, scripts/ and node_modules/ (so
 * `npm start` and `node dist/…` work as from the repository root). HOME, SANTRA_HOME and TMPDIR
 * are temp directories; PATH finds `santra`, `santra-server` and `santra-conformance` (links to the built
 * dist/ bins) and this Node first. Models are fake providers on 127.0.0.1: ANTHROPIC_BASE_URL and
 * OPENAI_BASE_URL point at them, the other presets are pointed at them in $SANTRA_HOME/config.json,
 * and ANTHROPIC_API_KEY/OPENAI_API_KEY hold dummies (an example's own `export KEY=…` still applies).
 * One rewrite is made to the commands: a loopback endpoint (`http://127.0.0.1:11434/v1`, Ollama's)
 * becomes the fake OpenAI-compatible provider's URL.
 *
 * Each command must exit with the expected code and print something on stdout (plain assignments
 * excepted); with `--output-format json` or `--json` stdout must be one JSON value, with
 * `stream-json` one per line; a `-p` prompt must print the fake's answer; protocol frames on stdout
 * must be well-formed JSON-RPC without errors.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type FakeProvider, startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { PRESETS } from '../../server/src/providers/presets.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ANSWER = 'Answer from the fake provider of the docs test.';
const BLOCK_TIMEOUT_MS = 60_000;
const dist = join(root, 'dist');

export interface DocCommand {
  /** 1-based line in the page where the command starts. */
  line: number;
  text: string;
}

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  marker: { runnable: true; exit: number } | { runnable: false; reason: string } | undefined;
  /** The marker comment was there but could not be read. */
  badMarker?: string;
  commands: DocCommand[];
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);
const MARKER = /^<!--\s*(runnable|not runnable)\b(.*?)-->\s*$/;

/** The shell blocks of a Markdown page, with the marker before each and its commands. */
export function shellBlocks(file: string, markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index] as string);
    if (open === null) continue;
    const fence = open[1] as string;
    let end = index + 1;
    while (end < lines.length && !(lines[end] as string).trimStart().startsWith(fence)) end++;
    if (SHELL_LANGS.has((open[2] as string).toLowerCase())) {
      const block: ShellBlock = {
        file,
        line: index + 1,
        marker: undefined,
        commands: commandsOf(lines.slice(index + 1, end), index + 2),
      };
      const previous = (lines[index - 1] ?? '').trim();
      const marker = MARKER.exec(previous);
      if (marker !== null) {
        const rest = (marker[2] as string).trim();
        if (marker[1] === 'not runnable') {
          const reason = rest.replace(/^:\s*/, '');
          if (reason === '') block.badMarker = previous;
          else block.marker = { runnable: false, reason };
        } else {
          const exit = /^(?:exit=(\d+))?$/.exec(rest);
          if (exit === null) block.badMarker = previous;
          else block.marker = { runnable: true, exit: Number(exit[1] ?? 0) };
        }
      } else if (previous.startsWith('<!--') && /runnable/.test(previous)) block.badMarker = previous;
      blocks.push(block);
    }
    index = end;
  }
  return blocks;
}

/** The commands of a block: one a line, `\` continuations joined, blank and comment lines left out. */
function commandsOf(lines: string[], firstLine: number): DocCommand[] {
  const commands: DocCommand[] = [];
  let pending: DocCommand | undefined;
  lines.forEach((raw, offset) => {
    const continued = pending !== undefined;
    const text = continued ? `${(pending as DocCommand).text}\n${raw}` : raw;
    if (!continued && (raw.trim() === '' || raw.trimStart().startsWith('#'))) return;
    const command = { line: continued ? (pending as DocCommand).line : firstLine + offset, text };
    if (/\\$/.test(raw)) pending = command;
    else {
      pending = undefined;
      commands.push(command);
    }
  });
  if (pending !== undefined) commands.push(pending);
  return commands;
}

/** `NAME=value` or `export NAME=value` alone on the line (a trailing comment allowed). */
export function isAssignment(command: string): boolean {
  return /^\s*(?:export\s+)?[A-Za-z_]\w*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"#])*\s*(?:#.*)?$/.test(command);
}

/** Loopback OpenAI-compatible endpoints in examples (Ollama, LM Studio, vLLM) become the fake's URL. */
export function rewriteEndpoints(command: string, openaiUrl: string): string {
  return command.replace(/https?:\/\/(?:127\.0\.0\.1|localhost):\d+\/v1\b/g, openaiUrl);
}

/** The Markdown pages whose shell blocks are checked. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', 'CONTRIBUTING.md', ...docs.map((name) => `docs/${name}`)];
}

interface CommandResult {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Splits `Content-Length` framed output into message bodies; throws on anything else. */
function frames(output: string): unknown[] {
  const messages: unknown[] = [];
  let rest = Buffer.from(output, 'utf8');
  while (rest.length > 0) {
    const headerEnd = rest.indexOf('\r\n\r\n');
    assert.ok(headerEnd > 0, `not a frame header: ${JSON.stringify(rest.subarray(0, 80).toString())}`);
    const length = /Content-Length: (\d+)/i.exec(rest.subarray(0, headerEnd).toString());
    assert.ok(length !== null, 'a frame without Content-Length');
    const start = headerEnd + 4;
    const body = rest.subarray(start, start + Number(length[1]));
    messages.push(JSON.parse(body.toString('utf8')));
    rest = rest.subarray(start + Number(length[1]));
  }
  return messages;
}

/** What the docs promise about one command's output. */
function checkOutput(command: string, result: CommandResult): void {
  assert.notEqual(result.stdout.trim(), '', 'stdout is empty');
  const format = /--output-format[= ](\S+)/.exec(command)?.[1];
  if (format === 'json' || /\s--json\b/.test(command)) {
    assert.doesNotThrow(() => JSON.parse(result.stdout), 'stdout is not one JSON value');
  }
  if (format === 'stream-json') {
    for (const line of result.stdout.split('\n').filter((text) => text !== ''))
      assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`);
  }
  if (/(?:^|\s)(?:-p|--print)\s/.test(command))
    assert.ok(result.stdout.includes(ANSWER), "stdout does not carry the fake provider's answer");
  if (result.stdout.startsWith('Content-Length:')) {
    const messages = frames(result.stdout) as Array<Record<string, unknown>>;
    assert.ok(messages.length > 0, 'no frames');
    for (const message of messages) {
      assert.equal(message.jsonrpc, '2.0');
      assert.equal(message.error, undefined, `an error response: ${JSON.stringify(message.error)}`);
    }
  }
}

const blocks: ShellBlock[] = [];
for (const page of await pages()) blocks.push(...shellBlocks(page, await readFile(join(root, page), 'utf8')));

describe('shell examples in the docs', () => {
  let temp = '';
  let anthropic: FakeProvider | undefined;
  let openai: FakeProvider | undefined;
  let baseEnv: NodeJS.ProcessEnv = {};
  let blockNumber = 0;

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'santra-docs-'));
    const turn = { text: ANSWER, repeat: true };
    anthropic = await startFakeProvider('anthropic', [turn]);
    openai = await startFakeProvider('openai', [turn]);

    const bin = join(temp, 'bin');
    await mkdir(bin);
    for (const name of ['santra', 'santra-server', 'santra-conformance'])
      await symlink(join(dist, `${name}.js`), join(bin, name));

    const home = join(temp, 'home');
    const santraHome = join(temp, 'santra-home');
    const tmp = join(temp, 'tmp');
    await mkdir(home);
    await mkdir(tmp);
    await mkdir(santraHome, { mode: 0o700 });
    // Every other preset goes to a fake too, so no example reaches the network.
    const providers = Object.fromEntries(
      PRESETS.filter((preset) => preset.id !== 'anthropic' && preset.id !== 'openai').map((preset) => [
        preset.id,
        { baseUrl: (preset.api === 'anthropic' ? anthropic : openai)?.url },
      ]),
    );
    await writeFile(join(santraHome, 'config.json'), JSON.stringify({ providers }, null, 2), {
      mode: 0o600,
    });

    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) =>
          !/_API_KEY$|_BASE_URL$|^SANTRA_|^XDG_CONFIG_HOME$|^npm_|^NODE_TEST_CONTEXT$|^NODE_OPTIONS$/i.test(
            name,
          ),
      ),
    );
    baseEnv = {
      ...inherited,
      PATH: [bin, dirname(process.execPath), process.env.PATH ?? ''].join(':'),
      HOME: home,
      SANTRA_HOME: santraHome,
      // Memory's extraction after runs is a model call of its own: off, so the fakes answer the runs.
      SANTRA_MEMORY_AUTO_EXTRACT: '0',
      TMPDIR: tmp, // whatever the examples' programs leave in a temp folder goes with ours
      ANTHROPIC_BASE_URL: anthropic.url,
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: 'sk-ant-docs-test-dummy',
      OPENAI_API_KEY: 'sk-docs-test-dummy',
      NO_COLOR: '1',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
  });

  after(async () => {
    await anthropic?.close();
    await openai?.close();
    if (temp !== '') await rm(temp, { recursive: true, force: true });
  });

  /** A fresh workspace: the pages and package.json copied, dist/, scripts/ and node_modules/ linked. */
  async function workspace(): Promise<string> {
    const dir = join(temp, `workspace-${++blockNumber}`);
    await mkdir(dir);
    for (const page of await pages()) {
      await mkdir(join(dir, dirname(page)), { recursive: true });
      await cp(join(root, page), join(dir, page));
    }
    await cp(join(root, 'package.json'), join(dir, 'package.json'));
    await symlink(dist, join(dir, 'dist'));
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
    // `npm start` runs scripts/start.js, which checks the Node and the build before santra.
    await symlink(join(root, 'scripts'), join(dir, 'scripts'));
    return dir;
  }

  /** Runs the block's commands in one bash, each with its own stdout, stderr and exit code. */
  async function runBlock(block: ShellBlock): Promise<CommandResult[]> {
    const dir = await workspace();
    const out = join(dir, '.docs-test');
    await mkdir(out);
    const script = block.commands
      .map((command, index) => {
        const text = rewriteEndpoints(command.text, (openai as FakeProvider).url);
        const files = join(out, String(index));
        return `{\n${text}\n} >'${files}.out' 2>'${files}.err' </dev/null; echo $? >'${files}.rc'`;
      })
      .join('\n');
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      cwd: dir,
      env: baseEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a timeout ends every process it started
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killGroup = () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(killGroup, BLOCK_TIMEOUT_MS);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(timer);
    killGroup(); // whatever an example left running in the background
    assert.equal(
      signal,
      null,
      `the block was killed after ${BLOCK_TIMEOUT_MS / 1000} s; bash said: ${stderr}`,
    );
    assert.equal(code, 0, `bash failed: ${stderr}`);
    const read = (file: string) => readFile(file, 'utf8').catch(() => '');
    return Promise.all(
      block.commands.map(async (_, index) => {
        const files = join(out, String(index));
        const rc = (await read(`${files}.rc`)).trim();
        return {
          code: rc === '' ? undefined : Number(rc),
          stdout: await read(`${files}.out`),
          stderr: await read(`${files}.err`),
        };
      }),
    );
  }

  test('every shell block is marked runnable or not runnable (with a reason)', () => {
    const unmarked = blocks
      .filter((block) => block.marker === undefined)
      .map(
        (block) =>
          `${block.file}:${block.line}: ${block.badMarker === undefined ? 'no marker' : `cannot read ${block.badMarker}`}`,
      );
    assert.deepEqual(
      unmarked,
      [],
      'put <!-- runnable --> or <!-- not runnable: why --> right before the fence',
    );
  });

  test('the docs have runnable examples', () => {
    assert.ok(blocks.some((block) => block.marker?.runnable === true));
  });

  for (const block of blocks) {
    const marker = block.marker;
    if (marker?.runnable !== true) continue;
    test(`${block.file}:${block.line}`, async (t) => {
      assert.ok(block.commands.length > 0, 'the block has no commands');
      const results = await runBlock(block);
      for (const [index, command] of block.commands.entries()) {
        const result = results[index] as CommandResult;
        await t.test(`${block.file}:${command.line}: ${command.text}`, () => {
          const shown = `\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`;
          const assignment = isAssignment(command.text);
          assert.equal(result.code, assignment ? 0 : marker.exit, `exit code${shown}`);
          if (assignment) return;
          try {
            checkOutput(command.text, result);
          } catch (error) {
            if (error instanceof Error) error.message += shown;
            throw error;
          }
        });
      }
    });
  }
});

test('the marker parser', () => {
  const page = [
    '<!-- runnable -->',
    '```sh',
    'export A=1   # a comment',
    '# a comment line',
    '',
    'echo one \\',
    '  two',
    '```',
    '<!-- runnable exit=1 -->',
    '```bash',
    'false',
    '```',
    '<!-- not runnable: slow -->',
    '```sh',
    'npm test',
    '```',
    '```sh',
    'unmarked',
    '```',
    '<!-- runnable please -->',
    '```sh',
    'x',
    '```',
    '```json',
    '{}',
    '```',
  ].join('\n');
  const blocks = shellBlocks('page.md', page);
  assert.deepEqual(
    blocks.map((block) => [block.line, block.marker, block.badMarker, block.commands]),
    [
      [
        2,
        { runnable: true, exit: 0 },
        undefined,
        [
          { line: 3, text: 'export A=1   # a comment' },
          { line: 6, text: 'echo one \\\n  two' },
        ],
      ],
      [10, { runnable: true, exit: 1 }, undefined, [{ line: 11, text: 'false' }]],
      [14, { runnable: false, reason: 'slow' }, undefined, [{ line: 15, text: 'npm test' }]],
      [17, undefined, undefined, [{ line: 18, text: 'unmarked' }]],
      [21, undefined, '<!-- runnable please -->', [{ line: 22, text: 'x' }]],
    ],
  );
  assert.equal(isAssignment(`body='{"a":"'"$PWD"'"}'`), true);
  assert.equal(isAssignment('export ANTHROPIC_API_KEY=sk-ant-your-key   # or OPENAI_API_KEY'), true);
  assert.equal(isAssignment('OPENAI_BASE_URL=http://x SANTRA_MODEL=m santra -p "hi"'), false);
  assert.equal(
    rewriteEndpoints('OPENAI_BASE_URL=http://127.0.0.1:11434/v1 santra', 'http://127.0.0.1:5/v1'),
    'OPENAI_BASE_URL=http://127.0.0.1:5/v1 santra',
  );
});
