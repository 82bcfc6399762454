/**
 * The Neovim plugin (editors/nvim) end to end: `nvim --headless -u NONE` with the plugin on the
 * runtimepath runs editors/nvim/test/approval_flow.lua, which sends a prompt with `:Santra` to the
 * built santra-server; a fake Anthropic provider on 127.0.0.1 scripts a write_file call, the
 * approval split opens, the script presses a key in it, and writes what it saw as JSON for the
 * assertions here. buffer_flow.lua does the same with a buffer the user has not saved, which the
 * plugin lends Santra (§7.5), and buffers.lua puts the lending itself through a file's cases.
 *
 * It lives in scripts/test: it runs the built server with the fake providers of the conformance
 * suite (scripts/dependency-rules.ts). Neovim is installed by .ci/run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type FakeTurn, type RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { nvimFlowSuite, runHeadlessNvim, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();
const SCRIPT = join(PLUGIN, 'test/approval_flow.lua');
const BUFFER_FLOW = join(PLUGIN, 'test/buffer_flow.lua');
const BUFFERS_CASES = join(PLUGIN, 'test/buffers.lua');
const TRANSCRIPT_CASES = join(PLUGIN, 'test/transcript.lua');
/** Neovim with no user config, no shada, no swap files, and the plugin on its runtimepath. */
const NVIM_ARGS = ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `set rtp^=${PLUGIN}`];

const systemText = (request: RecordedRequest) =>
  ((request.body.system ?? []) as Array<{ text: string }>).map((block) => block.text).join('\n');
const as = (role: string) => (request: RecordedRequest) =>
  systemText(request).includes(`You are the ${role}`);
const call = (role: string, id: string, name: string, args: unknown): FakeTurn => ({
  match: as(role),
  toolCalls: [{ id, name, args }],
});

const write = (path: string, content: string): FakeTurn => ({
  toolCalls: [{ id: 't1', name: 'write_file', args: { path, content } }],
});

interface Report {
  error?: string;
  approval_lines: string[];
  approval_shown_not_entered: boolean;
  approval_filetype: string;
  approval_closed: boolean;
  input_prompt?: string;
  question?: { prompt: string; options: string[] };
  result_status: string;
  session_id: string;
  transcript: string[];
  models?: string[];
  model_notice?: string;
  sessions: string[];
  resumed_transcript: string[];
  server_exited: boolean;
}

/**
 * Runs Lua flow `script` in a headless Neovim with the plugin, in a fresh workspace that
 * `prepare` fills, against a fake provider scripted with `turns`; the flow reads `env`.
 */
function runLua<R extends { error?: string }>(
  script: string,
  turns: FakeTurn[],
  prepare: (workspace: string) => void,
  env: Record<string, string>,
) {
  return runNvimFlow<R>({ plugin: PLUGIN, server: SERVER, script, turns, prepare, env, cleanups });
}

/** approval_flow.lua, with a tester agent that writes files and asks. */
function runFlow(
  decision: 'allow' | 'allow_all' | 'feedback' | 'cancel',
  turns: FakeTurn[],
  { agent = 'tester', prompt = 'write the greeting', model = '' } = {},
) {
  return runLua<Report>(
    SCRIPT,
    turns,
    (workspace) => writeTesterAgent(workspace, ['write_file', 'ask_user', 'task_completed'], 'Neovim plugin'),
    {
      SANTRA_NVIM_DECISION: decision,
      SANTRA_NVIM_AGENT: agent,
      SANTRA_NVIM_PROMPT: prompt,
      SANTRA_NVIM_MODEL: model,
    },
  );
}

const GREET = "function greet(name) {\n  return 'Hello, ' + name;\n}\n";
const UNSAVED = '// a line the user has not saved';

interface BufferReport {
  error?: string;
  before: string[];
  approvals: string[][];
  result_status: string;
  after: string[];
  after_modified: boolean;
  cursor: [number, number];
  loaded: string[];
  undone: string[];
  undone_modified: boolean;
  server_exited: boolean;
}

/**
 * buffer_flow.lua: greet.js open with an unsaved line, notes.txt not loaded; through the swarm,
 * the executor reads and edits both, and every approval is allowed.
 */
function runBufferFlow(turns: FakeTurn[]) {
  return runLua<BufferReport>(
    BUFFER_FLOW,
    turns,
    (workspace) => {
      writeFileSync(join(workspace, 'greet.js'), GREET);
      writeFileSync(join(workspace, 'notes.txt'), 'a draft\n');
    },
    {
      SANTRA_NVIM_FILE: 'greet.js',
      SANTRA_NVIM_UNSAVED: UNSAVED,
      SANTRA_NVIM_PROMPT: 'Use a template string in greet()',
    },
  );
}

/** The text of the tool result the model got for tool call `id`, from the request that carried it. */
function toolResultText(requests: RecordedRequest[], id: string): string {
  for (const request of requests) {
    for (const message of request.body.messages as Array<{ content: unknown }>) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Array<{ type: string; tool_use_id?: string }>) {
        if (block.type === 'tool_result' && block.tool_use_id === id) return JSON.stringify(block);
      }
    }
  }
  assert.fail(`no request carried the result of tool call ${id}`);
}

describe('santra.nvim', () => {
  test('allow: the approval split shows the diff, "y" allows it, the file is written and the run drawn', async () => {
    const { report, fake, workspace } = await runFlow(
      'allow',
      [write('greeting.txt', 'hello from nvim\n'), { text: 'Wrote greeting.txt.' }],
      { model: 'anthropic/claude-haiku-4-5' },
    );
    // :SantraModel listed the models and set the chosen one, which the run then used.
    assert.ok(report.models?.includes('anthropic/claude-haiku-4-5'), String(report.models));
    assert.equal(report.model_notice, 'santra: model: anthropic/claude-haiku-4-5');
    assert.equal(fake.requests[0]?.body.model, 'claude-haiku-4-5');
    assert.equal(report.approval_shown_not_entered, true);
    assert.equal(report.approval_filetype, 'diff');
    // What and where first, the keys right under it (a small window shows them), then the diff,
    // then the commands that answer from any window.
    assert.equal(report.approval_lines[0], 'Santra wants to create greeting.txt  (+1 -0)');
    assert.equal(
      report.approval_lines[1],
      '[y] allow   [a] allow all   [r/n] reject   [f] reject with feedback   (:q rejects)',
    );
    assert.ok(report.approval_lines.includes('+hello from nvim'), report.approval_lines.join('\n'));
    assert.match(
      report.approval_lines.at(-1) ?? '',
      /^From any window: :SantraAllow {2}:SantraAllowAll {2}:SantraReject/,
    );
    assert.equal(report.approval_closed, true);
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'hello from nvim\n');
    assert.equal(report.result_status, 'completed');
    const transcript = report.transcript.join('\n');
    assert.equal(report.transcript[0], '> write the greeting');
    assert.match(transcript, /• .*greeting\.txt/);
    assert.match(transcript, /✓ ok/);
    assert.match(transcript, /^Wrote greeting\.txt\.$/m);
    assert.match(transcript, /^\[completed\]\n\(completed, \$\d+\.\d{4}\)$/m);
    // :SantraResume listed the session (session/list); resuming it (afterSeq 0) drew it again,
    // the prompt and the cost of each run included (from session/export's records).
    assert.equal(report.sessions.length, 1);
    assert.match(report.sessions[0] ?? '', /write the greeting {2}\(\d+ messages\)$/);
    assert.equal(report.resumed_transcript[0], '# write the greeting');
    assert.deepEqual(report.resumed_transcript.slice(2), report.transcript);
    const resumed = report.resumed_transcript.join('\n');
    assert.match(resumed, /^> write the greeting$/m);
    assert.match(resumed, /^Wrote greeting\.txt\.$/m);
    assert.match(resumed, /✓ ok/);
    assert.match(resumed, /^\[completed\]\n\(completed, \$\d+\.\d{4}\)$/m);
    assert.equal(report.server_exited, true);
  });

  test('a question, then feedback: :SantraAnswer picks with vim.ui.select, "f" asks with vim.ui.input, nothing is written', async () => {
    const { report, fake, workspace } = await runFlow('feedback', [
      {
        toolCalls: [
          {
            id: 'q1',
            name: 'ask_user',
            args: {
              prompt: 'Tabs or spaces?',
              options: [
                { label: 'Tabs', value: 'tabs' },
                { label: 'Spaces', value: 'spaces' },
              ],
            },
          },
        ],
      },
      write('a.txt', 'one\n'),
      { text: 'Understood, a.md it is.' },
    ]);
    assert.equal(report.input_prompt, 'Feedback for the agent: ');
    assert.equal(report.approval_closed, true);
    assert.equal(existsSync(join(workspace, 'a.txt')), false);
    assert.equal(report.result_status, 'completed');
    // :SantraAnswer offered the options, and another answer, through vim.ui.select; the value of
    // the option chosen reached the model.
    assert.deepEqual(report.question, {
      prompt: 'Tabs or spaces?',
      options: ['Tabs', 'Spaces', 'Another answer…'],
    });
    assert.match(JSON.stringify(fake.requests[1]?.body.messages.at(-1)), /The user answered: spaces/);
    assert.match(JSON.stringify(fake.requests[2]?.body.messages.at(-1)), /use a\.md instead/);
    const transcript = report.transcript.join('\n');
    assert.match(transcript, /⊘ rejected/);
    assert.match(transcript, /^Understood, a\.md it is\.$/m);
    assert.equal(report.server_exited, true);
  });

  test('allow all, through the swarm: the executor is drawn indented under its section', async () => {
    const { report, workspace } = await runFlow(
      'allow_all',
      [
        call('orchestrator', 'o1', 'spawn_agent', { agentId: 'executor', task: 'Create notes.txt' }),
        call('executor', 'e1', 'write_file', { path: 'notes.txt', content: 'notes\n' }),
        call('executor', 'e2', 'write_file', { path: 'more.txt', content: 'more\n' }),
        call('executor', 'e4', 'run_command', { command: "printf 'out %s\\n' 1 2 3 4 5 6 7 8 9 10 11 12" }),
        call('executor', 'e3', 'task_completed', { result: 'notes.txt created' }),
        {
          ...call('orchestrator', 'o2', 'task_completed', { result: 'Created notes.txt.' }),
          text: 'Wrapping up.',
        },
      ],
      { agent: '', prompt: 'Create notes.txt in the project' },
    );
    assert.equal(report.approval_closed, true);
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'notes\n');
    // The second write was allowed by the server itself: the flow fails if it asks again.
    assert.equal(readFileSync(join(workspace, 'more.txt'), 'utf8'), 'more\n');
    assert.equal(report.result_status, 'completed');
    const transcript = report.transcript.join('\n');
    assert.match(transcript, /^• spawn_agent/m);
    assert.match(transcript, /^▸ Executor: Create notes\.txt$/m);
    assert.match(transcript, /^ {2}• write_file notes\.txt$/m);
    assert.match(transcript, /^ {4}✓ ok: created notes\.txt/m);
    assert.match(transcript, /^ {2}\[executor completed\]$/m);
    // The command's output, as the model read it: its last 10 lines, and how many were left out.
    const output = ['    ✓ ok: exit 0', '      │ … 2 earlier lines left out'];
    for (let n = 3; n <= 12; n++) output.push(`      │ out ${n}`);
    assert.ok(transcript.includes(output.join('\n')), transcript);
    // Text the orchestrator wrote before task_completed does not hide the answer it gave with it.
    assert.match(transcript, /^Wrapping up\.$/m);
    assert.match(transcript, /^Created notes\.txt\.$/m);
    assert.match(transcript, /^\[completed\]$/m);
  });

  test(':SantraCancel cancels the running prompt: the run ends cancelled', async () => {
    const { report } = await runFlow('cancel', [
      { text: ['working '], fault: { kind: 'stall', afterEvents: 4 } },
    ]);
    assert.equal(report.result_status, 'cancelled');
    assert.match(report.transcript.join('\n'), /^\[cancelled\]$/m);
    assert.equal(report.server_exited, true);
  });

  test('lent buffers: read_file sees the unsaved line, the allowed edit lands in the buffer, saved and undoable; a file not loaded stays on disk', async () => {
    const { report, fake, workspace } = await runBufferFlow([
      call('orchestrator', 'o1', 'spawn_agent', { agentId: 'executor', task: 'Use a template string' }),
      call('executor', 'e1', 'read_file', { path: 'greet.js' }),
      call('executor', 'e2', 'str_replace', {
        path: 'greet.js',
        oldStr: "'Hello, ' + name",
        newStr: '`Hello, ${name}`',
      }),
      call('executor', 'e3', 'read_file', { path: 'notes.txt' }),
      call('executor', 'e4', 'str_replace', { path: 'notes.txt', oldStr: 'draft', newStr: 'final' }),
      call('executor', 'e5', 'task_completed', { result: 'greet() uses a template string' }),
      call('orchestrator', 'o2', 'task_completed', { result: 'Done.' }),
    ]);
    assert.equal(report.result_status, 'completed');
    // The model read the buffer, unsaved line included (fs/readTextFile), and the disk for notes.txt.
    assert.match(toolResultText(fake.requests, 'e1'), new RegExp(UNSAVED));
    assert.match(toolResultText(fake.requests, 'e3'), /a draft/);
    // The approval's diff was made against the buffer: its context shows the unsaved line.
    assert.equal(report.approvals.length, 2, JSON.stringify(report.approvals));
    assert.ok(report.approvals[0]?.includes(` ${UNSAVED}`), (report.approvals[0] ?? []).join('\n'));
    // The edit is in the buffer, the unsaved line kept, and saved: buffer and disk agree.
    const edited = ['function greet(name) {', '  return `Hello, ${name}`;', '}', UNSAVED];
    assert.deepEqual(report.before, ['function greet(name) {', "  return 'Hello, ' + name;", '}', UNSAVED]);
    assert.deepEqual(report.after, edited);
    assert.equal(report.after_modified, false);
    assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), `${edited.join('\n')}\n`);
    assert.deepEqual(report.cursor, [1, 0]);
    // One undo brings back what the user had, unsaved line included.
    assert.deepEqual(report.undone, report.before);
    assert.equal(report.undone_modified, true);
    // notes.txt was not loaded: Santra wrote the disk, and no buffer was opened for it.
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'a final\n');
    assert.deepEqual(report.loaded, ['greet.js']);
    assert.equal(report.server_exited, true);
  });

  test('the transcript: a status line with a key replaces the one before it; other lines stay', async () => {
    const dir = tempDir('santra-nvim-transcript-');
    cleanups.push(() => removeTempDir(dir));
    const out = join(dir, 'report.json');
    const report = await runHeadlessNvim<{ lines?: string[]; command_lines?: string[]; error?: string }>({
      args: ['--cmd', `set rtp^=${PLUGIN}`, '-c', `luafile ${TRANSCRIPT_CASES}`],
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        TMPDIR: dir,
        XDG_STATE_HOME: join(dir, 'state'),
        SANTRA_NVIM_OUT: out,
      },
      out,
    });
    assert.equal(report.error, undefined, String(report.error));
    assert.deepEqual(report.lines, [
      '> write it',
      '',
      '… Retrying in 2 s (attempt 3 of 4)',
      'Writing the file.',
      '… write_file notes.md: receiving 16 KB',
      '… Reading the tests',
      '… Reading the tests again',
    ]);
    // A command's output: its last 10 lines, stderr's marked, and how many were left out.
    assert.deepEqual(report.command_lines, [
      '• run_command make',
      '  ✗ error: exit 2',
      '    │ … 3 earlier lines left out',
      ...[4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => `    │ line ${n}`),
      '    │ stderr: make: *** [all] Error 2',
      '• read_file a',
      '  ✓ ok: 1 lines',
    ]);
  });

  test('santra.buffers: texts as the file would be saved (eol, dos), minimal undoable writes, and what it declines', async () => {
    const dir = tempDir('santra-nvim-buffers-');
    cleanups.push(() => removeTempDir(dir));
    const out = join(dir, 'report.json');
    const work = join(dir, 'files');
    mkdirSync(work);
    const report = await runHeadlessNvim<Record<string, unknown>>({
      args: ['--cmd', `set rtp^=${PLUGIN}`, '-c', `luafile ${BUFFERS_CASES}`],
      cwd: work,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        TMPDIR: dir,
        XDG_STATE_HOME: join(dir, 'state'),
        SANTRA_NVIM_OUT: out,
      },
      out,
    });
    const answered = (value: unknown) => ({ value, err: null });
    const declined = (pattern: RegExp) => (outcome: unknown) => {
      const { value, err } = outcome as { value: unknown; err: unknown };
      assert.equal(value, null);
      assert.match(String(err), pattern);
    };
    // Reading: a buffer found through a link, lent when unmodified too (it holds what the disk
    // holds); not loaded, or unmodified while the disk changed → null (the disk).
    assert.equal(report.found_through_link, true);
    assert.deepEqual(report.unmodified, answered('one\n'));
    assert.deepEqual(report.stale, answered(null));
    assert.deepEqual(report.not_loaded, answered(null));
    // Typed in after Santra read it: the change is noticed, and a write over it declined.
    assert.deepEqual(report.unchanged_since_read, answered(null));
    assert.deepEqual(report.changed_since_read, answered('lent'));
    declined(/did not put the approved change into your buffer .* it changed after Santra read it/)(
      report.write_after_typing,
    );
    assert.deepEqual(report.write_after_typing_buffer, ['typed']);
    assert.deepEqual(report.changed_unlent, answered('unlent'));
    assert.deepEqual(report.unix, answered('a\nchanged\n'));
    assert.deepEqual(report.noeol, answered('a\nchanged'));
    assert.deepEqual(report.fixeol, answered('a\nchanged\n'));
    assert.equal(report.dos_format, 'dos');
    assert.deepEqual(report.dos, answered('a\r\nchanged\r\n'));
    declined(/'fileencoding' is latin1, not utf-8/)(report.latin1);
    // Writing: only the differing lines change (the cursor follows its line, a mark above stays),
    // the buffer is saved, and one undo restores the unsaved text before it.
    assert.deepEqual(report.write, answered(true));
    assert.equal(report.write_disk, 'keep 1\nkeep 2\nnew 3a\nnew 3b\nkeep 4\nchanged\n');
    assert.equal(report.write_modified, false);
    assert.deepEqual(report.write_cursor, [6, 2]);
    assert.deepEqual(report.write_mark, [1, 0]);
    assert.deepEqual(report.write_undone, ['keep 1', 'keep 2', 'old 3', 'changed']);
    assert.equal(report.write_undone_modified, true);
    assert.deepEqual(report.dos_write, answered(true));
    assert.equal(report.dos_write_disk, 'A\r\nb\r\n');
    declined(/lines end with CRLF .* a line ending with LF alone/)(report.dos_mixed);
    assert.equal(report.dos_mixed_disk, 'A\r\nb\r\n');
    assert.deepEqual(report.to_noeol, answered(true));
    assert.equal(report.to_noeol_disk, 'a\nb');
    assert.equal(report.to_noeol_read_after_change, 'A\nb');
    assert.deepEqual(report.emptied, answered(true));
    assert.equal(report.emptied_disk, '');
    // No loaded buffer: answered, the disk left to Santra, no buffer made.
    assert.deepEqual(report.unloaded, answered(true));
    assert.equal(report.unloaded_disk, 'disk\n');
    assert.equal(report.unloaded_buffer, -1);
    declined(/it is not 'modifiable'/)(report.not_modifiable);
  });

  test(':checkhealth santra reports the version, whether the server answers initialize, and the model and its key', async () => {
    const home = tempDir('santra-nvim-health-');
    cleanups.push(() => removeTempDir(home));
    const check = async (cmd: string[], env: Record<string, string> = {}) => {
      const out = join(home, 'health.txt');
      const lua = (code: string) => ['-c', `lua ${code}`];
      const nvim = spawn(
        'nvim',
        [
          ...NVIM_ARGS,
          ...lua(`require('santra').setup({cmd = vim.json.decode(os.getenv('SANTRA_NVIM_CMD'))})`),
          '-c',
          'checkhealth santra',
          ...lua(
            "local f = io.open(os.getenv('SANTRA_NVIM_OUT'), 'w') f:write(table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')) f:close()",
          ),
          '-c',
          'qall!',
        ],
        {
          cwd: home,
          stdio: 'ignore',
          env: {
            PATH: process.env.PATH,
            HOME: home,
            TMPDIR: home,
            XDG_STATE_HOME: join(home, '.local/state'),
            XDG_DATA_HOME: join(home, '.local/share'),
            SANTRA_HOME: join(home, 'santra'),
            SANTRA_NVIM_CMD: JSON.stringify(cmd),
            SANTRA_NVIM_OUT: out,
            ...env,
          },
        },
      );
      const [code] = (await once(nvim, 'exit')) as [number | null];
      assert.equal(code, 0);
      return readFileSync(out, 'utf8');
    };
    const key = 'sk-ant-health-check-secret';
    const found = await check([process.execPath, SERVER], {
      ANTHROPIC_API_KEY: key,
      SANTRA_MODEL: 'anthropic/claude-haiku-4-5',
    });
    assert.match(found, /OK: Neovim \d+\.\d+\.\d+/);
    assert.match(found, /OK: santra-server \d+\.\d+\.\d+ answers initialize \(protocol \d+\.\d+\.\d+\)/);
    assert.match(found, /OK: model anthropic\/claude-haiku-4-5 \(anthropic has a key\)/);
    assert.match(found, /OK: providers with a key: anthropic/);
    assert.ok(!found.includes(key), 'the key itself is never shown');
    // A model whose provider has no key, and nothing configured at all: errors that say what to set.
    const keyless = await check([process.execPath, SERVER], { SANTRA_MODEL: 'anthropic/claude-haiku-4-5' });
    assert.match(keyless, /ERROR: model anthropic\/claude-haiku-4-5: its provider anthropic has no key/);
    assert.match(keyless, /ANTHROPIC_API_KEY/);
    const nothing = await check([process.execPath, SERVER]);
    assert.match(nothing, /ERROR: no model is set and no provider has a key/);
    const missing = await check(['santra-server-that-is-not-there']);
    assert.match(missing, /ERROR: santra-server-that-is-not-there is not executable/);
  });
});
