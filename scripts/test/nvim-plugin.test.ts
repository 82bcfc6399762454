/**
 * The Neovim plugin (editors/nvim) end to end: `nvim --headless -u NONE` with the plugin on the
 * runtimepath runs editors/nvim/test/approval_flow.lua, which sends a prompt with `:Santra` to the
 * built santra-server; a fake Anthropic provider on 127.0.0.1 scripts a write_file call, the
 * approval split opens, the script presses a key in it, and writes what it saw as JSON for the
 * assertions here.
 *
 * It lives in scripts/test: it runs the built server with the fake providers of the conformance
 * suite (scripts/dependency-rules.ts). Neovim is installed by .ci/run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { nvimTestEnv, runHeadlessNvim, writeTesterAgent } from './helpers/editor-env.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../editors/nvim', import.meta.url));
const SCRIPT = join(PLUGIN, 'test/approval_flow.lua');
/** Neovim with no user config, no shada, no swap files, and the plugin on its runtimepath. */
const NVIM_ARGS = ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `set rtp^=${PLUGIN}`];
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

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
  approval_in_current_window: boolean;
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

/** Runs the Lua flow in a headless Neovim against a fake provider scripted with `turns`. */
async function runFlow(
  decision: 'allow' | 'allow_all' | 'feedback' | 'cancel',
  turns: FakeTurn[],
  { agent = 'tester', prompt = 'write the greeting', model = '' } = {},
) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-nvim-home-');
  const workspace = tempDir('santra-nvim-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  writeTesterAgent(workspace, ['write_file', 'ask_user', 'task_completed'], 'Neovim plugin');
  const out = join(home, 'report.json');
  const report = await runHeadlessNvim<Report>({
    args: ['--cmd', `set rtp^=${PLUGIN}`, '-c', `luafile ${SCRIPT}`],
    cwd: workspace,
    env: {
      ...nvimTestEnv(home, fake.url),
      SANTRA_NVIM_NODE: process.execPath,
      SANTRA_NVIM_SERVER: SERVER,
      SANTRA_NVIM_OUT: out,
      SANTRA_NVIM_DECISION: decision,
      SANTRA_NVIM_AGENT: agent,
      SANTRA_NVIM_PROMPT: prompt,
      SANTRA_NVIM_MODEL: model,
    },
    out,
  });
  return { report, fake, workspace };
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
    assert.equal(report.approval_in_current_window, true);
    assert.equal(report.approval_filetype, 'diff');
    assert.equal(report.approval_lines[0], 'Santra wants to create greeting.txt');
    assert.ok(report.approval_lines.includes('+hello from nvim'), report.approval_lines.join('\n'));
    assert.match(
      report.approval_lines.at(-1) ?? '',
      /\[y\] allow {3}\[a\] allow all {3}\[r\/n\] reject {3}\[f\]/,
    );
    assert.equal(report.approval_closed, true);
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'hello from nvim\n');
    assert.equal(report.result_status, 'completed');
    const transcript = report.transcript.join('\n');
    assert.equal(report.transcript[0], '> write the greeting');
    assert.match(transcript, /• .*greeting\.txt/);
    assert.match(transcript, /✓ ok/);
    assert.match(transcript, /^Wrote greeting\.txt\.$/m);
    assert.match(transcript, /^\[completed\]$/m);
    // :SantraResume listed the session (session/list); resuming it (afterSeq 0) drew it again.
    assert.equal(report.sessions.length, 1);
    assert.match(report.sessions[0] ?? '', /write the greeting {2}\(\d+ messages\)$/);
    assert.equal(report.resumed_transcript[0], '# write the greeting');
    const resumed = report.resumed_transcript.join('\n');
    assert.match(resumed, /^Wrote greeting\.txt\.$/m);
    assert.match(resumed, /✓ ok/);
    assert.equal(report.server_exited, true);
  });

  test('a question, then feedback: vim.ui.select answers, "f" asks with vim.ui.input, nothing is written', async () => {
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
    // The question went through vim.ui.select; the value of the option chosen reached the model.
    assert.deepEqual(report.question, { prompt: 'Tabs or spaces?', options: ['Tabs', 'Spaces'] });
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
        call('executor', 'e3', 'task_completed', { result: 'notes.txt created' }),
        call('orchestrator', 'o2', 'task_completed', { result: 'Created notes.txt.' }),
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

  test(':checkhealth santra reports the version and whether the server answers initialize', async () => {
    const home = tempDir('santra-nvim-health-');
    cleanups.push(() => removeTempDir(home));
    const check = async (cmd: string[]) => {
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
          },
        },
      );
      const [code] = (await once(nvim, 'exit')) as [number | null];
      assert.equal(code, 0);
      return readFileSync(out, 'utf8');
    };
    const found = await check([process.execPath, SERVER]);
    assert.match(found, /OK: Neovim \d+\.\d+\.\d+/);
    assert.match(found, /OK: santra-server \d+\.\d+\.\d+ answers initialize \(protocol \d+\.\d+\.\d+\)/);
    const missing = await check(['santra-server-that-is-not-there']);
    assert.match(missing, /ERROR: santra-server-that-is-not-there is not executable/);
  });
});
