/**
 * docs/editors/helix.md, checked as Helix 25.07 would use it:
 *
 * - its languages.toml snippet against Helix's documented keys (book/src/languages.md, "Language
 *   Server configuration": command, args, config, timeout, environment, required-root-patterns; a
 *   language's `language-servers`), each language keeping the servers Helix 25.07 gives it, and its
 *   command run as written: `santra lsp` from package.json's bin answers an LSP initialize;
 * - every `:lsp-workspace-command` line of the page sent as Helix sends it — the words after the
 *   command's name read as a stream of JSON values, one per argument (helix-term typed.rs,
 *   lsp_workspace_command) — to `santra lsp` with the snippet's `config`, as a Helix 25.07 client
 *   (no window/showMessageRequest), in one session against a fake Anthropic provider on 127.0.0.1:
 *   each is taken, does what the page says, and the snippet's model warns of nothing.
 *
 * Node has no TOML parser; the snippet uses the few TOML forms read here, and anything else fails
 * the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type ApplyWorkspaceEditParams,
  type TextDocumentEdit,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { offsetAt } from '../../server/src/connection/lsp/documents.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { writeTesterAgent } from './helpers/editor-env.ts';
import { FIXED, ORIGINAL } from './helpers/greet-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LANGUAGE_SERVER_KEYS = [
  'command',
  'args',
  'config',
  'timeout',
  'environment',
  'required-root-patterns',
];
const LANGUAGE_KEYS = ['name', 'language-servers'];
/**
 * The servers Helix 25.07 gives each language (its languages.toml, tag 25.07.1): a snippet's
 * `language-servers` replaces the list, so it must keep them.
 */
const HELIX_2507_SERVERS: Record<string, string[]> = {
  typescript: ['typescript-language-server'],
  tsx: ['typescript-language-server'],
  javascript: ['typescript-language-server'],
  rust: ['rust-analyzer'],
  python: ['ty', 'ruff', 'jedi', 'pylsp'],
  go: ['gopls', 'golangci-lint-lsp'],
};

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

type Tables = Array<{ header: string; keys: Map<string, string> }>;

/** The TOML block after the `helix-languages-toml` marker, as tables of raw `key = value` lines. */
function snippetTables(): Tables {
  const markdown = readFileSync(join(ROOT, 'docs/editors/helix.md'), 'utf8');
  const block = /<!-- helix-languages-toml -->\s*```toml\n([\s\S]*?)```/.exec(markdown)?.[1];
  assert.ok(block, 'helix.md has a ```toml block after <!-- helix-languages-toml -->');
  const tables: Tables = [];
  for (const raw of block.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^(\[\[?[a-z.-]+\]\]?)$/.exec(line)?.[1];
    if (header !== undefined) {
      tables.push({ header, keys: new Map() });
      continue;
    }
    const pair = /^([a-z-]+) = (.+)$/.exec(line);
    assert.ok(pair?.[1] !== undefined && pair[2] !== undefined, `not a key = value line: ${line}`);
    const table = tables.at(-1);
    assert.ok(table, `a key before any table: ${line}`);
    table.keys.set(pair[1], pair[2]);
  }
  return tables;
}

test('helix.md: the languages.toml snippet uses only documented keys and starts `santra lsp`', () => {
  const tables = snippetTables();
  const server = tables.find((table) => table.header === '[language-server.santra]');
  assert.ok(server, 'a [language-server.santra] table');
  for (const key of server.keys.keys())
    assert.ok(LANGUAGE_SERVER_KEYS.includes(key), `undocumented key ${key}`);
  assert.equal(server.keys.get('command'), '"santra"');
  assert.equal(server.keys.get('args'), '["lsp"]');
  // config becomes initializationOptions, which santra lsp checks: only model and agent.
  assert.match(server.keys.get('config') ?? '', /^\{ model = "[a-z]+\/[a-z0-9.-]+" \}$/);
  const languages = tables.filter((table) => table.header === '[[language]]');
  assert.ok(languages.length > 0, 'a [[language]] entry');
  assert.ok(languages.length >= 4, 'several languages, as the page promises');
  for (const language of languages) {
    for (const key of language.keys.keys()) assert.ok(LANGUAGE_KEYS.includes(key), `undocumented key ${key}`);
    const name = JSON.parse(language.keys.get('name') ?? 'null') as string;
    const servers = JSON.parse(language.keys.get('language-servers') ?? '[]') as string[];
    assert.ok(HELIX_2507_SERVERS[name], `a language this test knows Helix 25.07's servers of: ${name}`);
    assert.deepEqual(servers, [...HELIX_2507_SERVERS[name], 'santra'], `${name} keeps its servers`);
  }
  assert.equal(tables.length, 1 + languages.length, 'no other tables');
  const bin = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  ).bin;
  assert.equal(bin.santra, 'dist/santra.js', 'the snippet\'s command is package.json\'s "santra" bin');
});

test("`santra lsp`, the snippet's command, answers an LSP initialize and exits 0 after shutdown and exit", async () => {
  const home = tempDir('santra-helix-doc-');
  try {
    const child = spawn(process.execPath, [join(ROOT, 'dist/santra.js'), 'lsp'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra') },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const frame = (message: object) => {
      const body = JSON.stringify({ jsonrpc: '2.0', ...message });
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    child.stdin.write(
      frame({ id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } }),
    );
    child.stdin.write(frame({ id: 2, method: 'shutdown' }));
    child.stdin.write(frame({ method: 'exit' }));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Content-Length: \d+\r\n\r\n\{"jsonrpc":"2.0","id":1,"result":\{"capabilities":/);
    assert.ok(stdout.includes('"santra.fix"'), stdout);
  } finally {
    await removeTempDir(home);
  }
});

/**
 * The arguments Helix 25.07 sends for what follows the command's name on its command line: a
 * stream of JSON values (serde_json's StreamDeserializer), each ended by whitespace, the end, or
 * its own closing quote or bracket. Throws as Helix fails: "failed to parse arguments".
 */
function helixArguments(rest: string): unknown[] {
  const values: unknown[] = [];
  let text = rest.trim();
  while (text !== '') {
    let taken: { value: unknown; length: number } | undefined;
    for (let end = 1; end <= text.length && taken === undefined; end++) {
      const next = text[end];
      if (next !== undefined && !/[\s"[{]/.test(next) && !/["\]}]$/.test(text.slice(0, end))) continue;
      try {
        taken = { value: JSON.parse(text.slice(0, end)) as unknown, length: end };
      } catch {
        // Not a whole value yet.
      }
    }
    if (taken === undefined) throw new Error(`failed to parse arguments: ${text}`);
    values.push(taken.value);
    text = text.slice(taken.length).trim();
  }
  return values;
}

/** The `:lsp-workspace-command` lines of helix.md, as the reader types them. */
function documentedCommandLines(): string[] {
  const markdown = readFileSync(join(ROOT, 'docs/editors/helix.md'), 'utf8');
  return markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith(':lsp-workspace-command '));
}

/**
 * The page's approval examples: the status line of an editor without showMessageRequest (inline
 * code, wrapped in the Markdown source), and the excerpt of the prompt (a block under its headline).
 */
function documentedApproval(): { statusLine: string; excerpt: string[] } {
  const markdown = readFileSync(join(ROOT, 'docs/editors/helix.md'), 'utf8');
  const statusLine = /the status line\s+says what Santra wants and how to answer, e\.g\. `([^`]+)`/.exec(
    markdown,
  )?.[1];
  const block = /```\n\s*(Santra wants to [^\n]*)\n([\s\S]*?)\n\s*```/.exec(markdown);
  assert.ok(
    statusLine !== undefined && block?.[1] !== undefined && block[2] !== undefined,
    'helix.md shows an approval',
  );
  const indent = /^ */.exec(block[0].split('\n')[1] ?? '')?.[0].length ?? 0;
  return {
    statusLine: statusLine.replace(/\s+/g, ' '),
    excerpt: block[2].split('\n').map((line) => line.slice(indent)),
  };
}

/** A typed command line as Helix sends it: workspace/executeCommand params. */
function asHelixSends(line: string): { command: string; arguments?: unknown[] } {
  const [, command, rest] = /^:lsp-workspace-command (\S+)\s*(.*)$/.exec(line) ?? [];
  assert.ok(command !== undefined, `not a command line: ${line}`);
  const args = helixArguments(rest ?? '');
  return args.length === 0 ? { command } : { command, arguments: args };
}

test('Helix reads command-line arguments as JSON: "allow" in quotes is an argument, a bare word fails', () => {
  assert.deepEqual(helixArguments('"allow"'), ['allow']);
  assert.deepEqual(helixArguments('"a \\"b\\" c" {"id":"x","answer":"y"} 12'), [
    'a "b" c',
    { id: 'x', answer: 'y' },
    12,
  ]);
  assert.deepEqual(helixArguments(''), []);
  // The form the page once gave: Helix 25.07 refuses it before it reaches Santra.
  assert.throws(() => helixArguments('allow'), /failed to parse arguments/);
  assert.throws(() => helixArguments('Where is the session saved?'), /failed to parse arguments/);
});

test(
  "every `:lsp-workspace-command` line of helix.md does what the page says, sent as Helix 25.07 sends it, with the snippet's model",
  { timeout: 60_000 },
  async () => {
    const lines = documentedCommandLines();
    /** The page's line that starts so (or is exactly so, with `exact`). */
    const line = (start: string, exact = false) => {
      const typed = `:lsp-workspace-command ${start}`;
      const found = lines.find((candidate) => (exact ? candidate === typed : candidate.startsWith(typed)));
      assert.ok(found, `helix.md shows ${typed}`);
      return found;
    };
    const ask = line('santra.ask "');
    const feedback = line('santra.answer "keep');
    const allow = line('santra.answer "allow"');
    const undo = line('santra.undo', true);
    const undoRun = line('santra.undo "run"', true);
    const cancel = line('santra.cancel', true);
    assert.deepEqual(
      [...new Set(lines)].sort(),
      [ask, feedback, allow, undo, undoRun, cancel].sort(),
      'the page shows no command line this test does not run',
    );
    const model = /^\{ model = "([^"]+)" \}$/.exec(
      snippetTables()
        .find((table) => table.header === '[language-server.santra]')
        ?.keys.get('config') ?? '',
    )?.[1];
    assert.ok(model, "the snippet's config names a model");

    const fake = await startFakeProvider('anthropic', [
      { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'greet.js', content: FIXED } }] },
      { toolCalls: [{ id: 't2', name: 'write_file', args: { path: 'greet.js', content: FIXED } }] },
      { text: 'Done.' },
      { text: ['working '], fault: { kind: 'stall', afterEvents: 4 } },
    ]);
    const home = tempDir('santra-helix-doc-home-');
    const workspace = tempDir('santra-helix-doc-ws-');
    cleanups.push(async () => {
      await fake.close();
      await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
    });
    writeTesterAgent(workspace, ['write_file', 'task_completed'], 'Helix doc');
    const file = join(workspace, 'greet.js');
    writeFileSync(file, ORIGINAL);
    const child = spawn(process.execPath, [join(ROOT, 'dist/santra.js'), 'lsp'], {
      cwd: workspace,
      // As the snippet has it: no model in the environment, the key from it, the model from `config`.
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: home,
        SANTRA_HOME: join(home, 'santra'),
        // Memory's extraction after runs is a model call of its own: off, so the scripted turns are the runs'.
        SANTRA_MEMORY_AUTO_EXTRACT: '0',
        ANTHROPIC_API_KEY: 'sk-ant-fake-key',
        ANTHROPIC_BASE_URL: fake.url,
      },
    });
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill();
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lsp = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    // A request to a server that died is never answered: fail with what it said instead of waiting.
    const died = once(child, 'exit').then(([code]) =>
      assert.fail(`santra lsp exited (${String(code)}) before the test ended\n${stderr}`),
    );
    const uri = pathToFileURL(file).href;
    const buffer = { text: ORIGINAL, version: 1 };
    const shown: string[] = [];
    lsp.onNotification('window/showMessage', ({ message }: { message: string }) => void shown.push(message));
    lsp.onNotification('window/logMessage', () => undefined);
    lsp.onNotification('$/progress', () => undefined);
    lsp.onRequest('window/workDoneProgress/create', () => null);
    // What Helix does with an edit: applies it to the buffer, then reports the buffer with didChange.
    lsp.onRequest('workspace/applyEdit', async ({ edit }: ApplyWorkspaceEditParams) => {
      for (const change of (edit.documentChanges ?? []) as TextDocumentEdit[]) {
        if (change.textDocument.version !== buffer.version) return { applied: false };
        buffer.text = applyEdits(buffer.text, change.edits as TextEdit[]);
        buffer.version += 1;
        await lsp.sendNotification('textDocument/didChange', {
          textDocument: { uri, version: buffer.version },
          contentChanges: [{ text: buffer.text }],
        });
      }
      return { applied: true };
    });
    lsp.listen();
    const until = async (what: string, probe: () => string | undefined): Promise<string> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = probe();
        if (found !== undefined) return found;
        if (child.exitCode !== null) assert.fail(`santra lsp exited waiting for ${what}\n${stderr}`);
        if (Date.now() > deadline)
          assert.fail(`timed out waiting for ${what}\nshown: ${shown.join(' | ')}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const type = (typed: string) =>
      Promise.race([lsp.sendRequest('workspace/executeCommand', asHelixSends(typed)), died]);

    // Helix 25.07's capabilities: progress and edits, no showMessageRequest, no showDocument.
    await Promise.race([
      died,
      lsp.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(workspace).href,
        workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
        capabilities: {
          window: { workDoneProgress: true },
          workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, executeCommand: {} },
        },
        // The snippet's config; the test's agent scripts the model's tools.
        initializationOptions: { model, agent: 'tester' },
      }),
    ]);
    await lsp.sendNotification('initialized', {});
    await lsp.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'javascript', version: 1, text: ORIGINAL },
    });

    // A free-text question starts a run; its write waits for an answer, which the status line says how to give.
    assert.equal(await type(ask), null);
    const notice = await until('the approval', () => shown.find((m) => m.startsWith('Santra wants to')));
    const [statusLine, ...excerpt] = notice.split('\n');
    const hinted = /santra\.answer ("allow")/.exec(statusLine ?? '')?.[1];
    assert.deepEqual(helixArguments(hinted ?? ''), ['allow'], `the hint types as Helix takes it: ${notice}`);
    // The page's examples are what Santra says about this very change.
    const example = documentedApproval();
    assert.equal(statusLine, example.statusLine);
    assert.deepEqual(excerpt, example.excerpt);
    // Feedback: rejected, and the model reads why.
    assert.equal(await type(feedback), null);
    await until('the second approval', () => shown.filter((m) => m.startsWith('Santra wants to'))[1]);
    assert.match(
      JSON.stringify(fake.requests[1]?.body.messages.at(-1)),
      /keep the old name, only fix the bounds check/,
    );
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    // "allow": the file and the buffer hold the change.
    assert.equal(await type(allow), null);
    await until('the answer', () => shown.find((m) => m === 'Done.'));
    assert.equal(readFileSync(file, 'utf8'), FIXED);
    assert.equal(buffer.text, FIXED);
    // Santra's undo: the disk and the buffer as before.
    assert.equal(await type(undo), null);
    await until('the undo', () => shown.find((m) => m.startsWith('santra.undo:')));
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
    assert.equal(buffer.text, ORIGINAL);
    // The last run's changes: that one was its only one.
    assert.equal(await type(undoRun), null);
    await until('the second undo', () => shown.find((m) => m === 'santra.undo: nothing left to undo'));
    // A run to cancel.
    assert.equal(await type(ask), null);
    await until('the run', () => (fake.requests.length === 4 ? 'started' : undefined));
    assert.equal(await type(cancel), null);
    await until('the cancelled run', () => shown.find((m) => m.startsWith('Santra: ask: cancelled')));

    // The snippet's model is the one asked, and it is not one the SDK warns about on every request.
    assert.deepEqual(
      [...new Set(fake.requests.map((request) => (request.body as { model?: string }).model))],
      [model.replace(/^anthropic\//, '')],
    );
    assert.doesNotMatch(stderr, /deprecated/i);

    died.catch(() => undefined); // From here on the server is meant to exit.
    const exited = once(child, 'exit');
    await lsp.sendRequest('shutdown');
    await lsp.sendNotification('exit');
    assert.equal(((await exited) as [number | null])[0], 0);
    lsp.dispose();
  },
);

/** Applies `edits` (ranges in `text`) from the last to the first, so each range still holds. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const start = (edit: TextEdit) => offsetAt(text, edit.range.start);
  let result = text;
  for (const edit of [...edits].sort((a, b) => start(b) - start(a))) {
    result = result.slice(0, start(edit)) + edit.newText + result.slice(offsetAt(text, edit.range.end));
  }
  return result;
}
