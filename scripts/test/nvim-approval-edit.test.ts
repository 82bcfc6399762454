/**
 * Approvals that edit (§7.3.2) in the Neovim plugin, end to end: a headless Neovim with the plugin
 * runs editors/nvim/test/edit_flow.lua against the built santra-server and a fake Anthropic
 * provider on 127.0.0.1, answering as a user would — a hunk dropped with <Space> in the
 * approval's window, the proposal edited in its diff view and saved with :w, a command edited
 * before it runs, and a project's MCP server trusted and its tool's call allowed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { MCP_SERVERS_SCRIPT } from '../../server/test/helpers/mcp-servers.ts';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

const tool = (id: string, name: string, args: unknown): FakeTurn => ({ toolCalls: [{ id, name, args }] });

/** The last message of a request the model got (a tool's result comes back in it), as JSON text. */
const lastMessage = (request: RecordedRequest | undefined) =>
  JSON.stringify((request?.body.messages as unknown[] | undefined)?.at(-1));

interface EditReport {
  error?: string;
  notices: string[];
  approvals: { kind: string; lines: string[]; filetype: string }[];
  cursor_line?: string;
  after_toggle?: string[];
  marks?: string[];
  edit_name?: string;
  proposal?: string[];
  diff_windows?: number;
  tabs_while_editing?: number;
  answered?: boolean;
  buffer_valid_after?: boolean;
  command_lines?: string[];
  trust_keys_refused?: boolean;
  trust_answered?: boolean;
  result_status: string;
  transcript: string[];
  buffer?: string[];
  buffer_modified?: boolean;
  server_exited: boolean;
}

/** Twelve lines: a change of the first and the last is two hunks (three lines of context each). */
const TWELVE = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);

function runEditFlow(
  which: 'drop' | 'drop_stale' | 'edit' | 'command' | 'trust',
  turns: FakeTurn[],
  prepare: (workspace: string) => void,
  env: Record<string, string>,
) {
  return runNvimFlow<EditReport>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/edit_flow.lua'),
    turns,
    prepare,
    env: { SANTRA_NVIM_CASE: which, ...env },
    cleanups,
  });
}

describe('santra.nvim approvals that edit', () => {
  test('a two-hunk change with the second hunk dropped (<Space>) writes only the first; the model is told', async () => {
    const proposed = ['LINE 1', ...TWELVE.slice(1, 11), 'LINE 12'];
    const { report, workspace, fake } = await runEditFlow(
      'drop',
      [
        tool('w1', 'write_file', { path: 'app.txt', content: `${proposed.join('\n')}\n` }),
        { text: 'Changed the first line.' },
      ],
      (workspace) => {
        writeTesterAgent(workspace, ['write_file', 'task_completed'], 'Neovim approvals that edit');
        writeFileSync(join(workspace, 'app.txt'), `${TWELVE.join('\n')}\n`);
      },
      { SANTRA_NVIM_FILE: 'app.txt', SANTRA_NVIM_PROMPT: 'Capitalise' },
    );
    const [shown] = report.approvals;
    assert.equal(shown?.kind, 'file_change');
    assert.equal(shown?.lines[0], 'Santra wants to modify app.txt  (+2 -2)');
    assert.match(
      shown?.lines[2] ?? '',
      /^\[space\] keep\/drop the hunk under the cursor {3}\]c \[c\] next\/previous hunk {3}\[e\] edit/,
    );
    assert.equal(shown?.lines[3], 'hunks: 2 of 2 kept');
    // ]c ]c went to the second hunk's @@ line; <Space> dropped it, and the window says so.
    assert.match(report.cursor_line ?? '', /^@@ -9,4 \+9,4 @@/);
    assert.equal(report.after_toggle?.[3], 'hunks: 1 of 2 kept');
    assert.deepEqual(report.marks, ['  ✓ kept', '  ✗ dropped']);
    // Only the first hunk was written, on disk and in the buffer.
    const written = ['LINE 1', ...TWELVE.slice(1)];
    assert.equal(readFileSync(join(workspace, 'app.txt'), 'utf8'), `${written.join('\n')}\n`);
    assert.deepEqual(report.buffer, written);
    assert.equal(report.buffer_modified, false);
    // The model's next request says which hunk was applied and which was not, with its text.
    const told = lastMessage(fake.requests[1]);
    assert.match(told, /LINE 12/);
    assert.match(told, /not applied|rejected/i);
    assert.equal(report.result_status, 'completed');
    assert.equal(report.server_exited, true);
  });

  test('the file changed before the answer: the hunks chosen are not applied to it; the change is made again and asked again', async () => {
    const { report, workspace } = await runEditFlow(
      'drop_stale',
      [
        tool('m1', 'multi_edit', {
          path: 'app.txt',
          edits: [
            { oldStr: 'line 1\n', newStr: 'LINE 1\n' },
            { oldStr: 'line 12', newStr: 'LINE 12' },
          ],
        }),
        { text: 'Changed.' },
      ],
      (workspace) => {
        writeTesterAgent(workspace, ['multi_edit', 'task_completed'], 'Neovim approvals that edit');
        writeFileSync(join(workspace, 'app.txt'), `${TWELVE.join('\n')}\n`);
      },
      { SANTRA_NVIM_FILE: 'app.txt', SANTRA_NVIM_PROMPT: 'Capitalise' },
    );
    const [, second] = report.approvals;
    assert.equal(report.approvals.length, 2);
    assert.ok(
      (second?.lines ?? []).some((line) => /You changed the file while you were asked/.test(line)),
      (second?.lines ?? []).join('\n'),
    );
    // The second proposal is made on the user's text: written whole, the user's line kept.
    const written = ['LINE 1', ...TWELVE.slice(1, 5), 'the user was here', ...TWELVE.slice(6, 11), 'LINE 12'];
    assert.equal((second?.lines ?? []).includes('-the user was here'), false);
    assert.deepEqual(report.buffer, written);
    assert.equal(readFileSync(join(workspace, 'app.txt'), 'utf8'), `${written.join('\n')}\n`);
    assert.equal(report.result_status, 'completed');
  });

  test('e opens the proposal beside the file in diff mode; the version saved with :w is what is written', async () => {
    const { report, workspace, fake } = await runEditFlow(
      'edit',
      [
        tool('s1', 'str_replace', {
          path: 'hello.txt',
          oldStr: 'hello world\nbye',
          newStr: 'goodbye world\nsee you',
        }),
        { text: 'Done.' },
      ],
      (workspace) => {
        writeTesterAgent(
          workspace,
          ['read_file', 'str_replace', 'task_completed'],
          'Neovim approvals that edit',
        );
        writeFileSync(join(workspace, 'hello.txt'), 'hello world\nbye\n');
      },
      { SANTRA_NVIM_FILE: 'hello.txt', SANTRA_NVIM_PROMPT: 'Say goodbye' },
    );
    assert.match(report.edit_name ?? '', /santra:\/\/approve\/.*\/proposal\/hello\.txt$/);
    assert.deepEqual(report.proposal, ['goodbye world', 'see you']);
    assert.equal(report.diff_windows, 2);
    assert.equal(report.tabs_while_editing, 2);
    assert.equal(report.answered, true);
    assert.equal(report.buffer_valid_after, false);
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'goodbye world\nedited by the user\n');
    assert.deepEqual(report.buffer, ['goodbye world', 'edited by the user']);
    // The model is told the person's changes as a diff from its proposal.
    const told = lastMessage(fake.requests[1]);
    assert.match(told, /-see you/);
    assert.match(told, /\+edited by the user/);
    assert.equal(report.result_status, 'completed');
    assert.equal(report.server_exited, true);
  });

  test('e on a command opens it; the version saved with :w is asked again and runs, the proposed one does not', async () => {
    const { report, workspace, fake } = await runEditFlow(
      'command',
      [tool('c1', 'run_command', { command: 'printf "%s\\n" proposed > proposed.txt' }), { text: 'Ran it.' }],
      (workspace) =>
        writeTesterAgent(workspace, ['run_command', 'task_completed'], 'Neovim approvals that edit'),
      { SANTRA_NVIM_PROMPT: 'Write a file' },
    );
    assert.deepEqual(report.command_lines, ['printf "%s\\n" proposed > proposed.txt']);
    assert.equal(report.approvals.length, 2);
    assert.ok(
      report.approvals[1]?.lines.includes('  $ printf "%s\\n" edited-by-user > edited.txt'),
      (report.approvals[1]?.lines ?? []).join('\n'),
    );
    assert.equal(existsSync(join(workspace, 'proposed.txt')), false);
    assert.equal(readFileSync(join(workspace, 'edited.txt'), 'utf8'), 'edited-by-user\n');
    assert.match(lastMessage(fake.requests[1]), /edited-by-user/);
    assert.equal(report.result_status, 'completed');
  });

  test("a project's .mcp.json server asks to be trusted: its definition is shown, allow-all is refused, y trusts it; its tool's call shows server, tool and arguments", async () => {
    const definition = { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'tools'] };
    const { report, fake } = await runEditFlow(
      'trust',
      [tool('m1', 'mcp__proj__echo', { text: 'from nvim' }), { text: 'Echoed.' }],
      (workspace) => {
        writeTesterAgent(workspace, ['mcp__*', 'task_completed'], 'Neovim approvals that edit');
        writeFileSync(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { proj: definition } }));
      },
      { SANTRA_NVIM_PROMPT: 'Echo something' },
    );
    const [trust, call] = report.approvals;
    assert.equal(trust?.kind, 'trust');
    assert.equal(trust?.filetype, 'json');
    assert.equal(
      trust?.lines[0],
      'Santra asks you to trust the MCP server proj, from .mcp.json: it runs code on your machine',
    );
    assert.match(trust?.lines[1] ?? '', /^! protected location: /);
    assert.match(trust?.lines[2] ?? '', /^\[y\] trust it {3}\[r\/n\] do not trust it/);
    assert.match((trust?.lines ?? []).join('\n'), /mcp-servers\.ts/);
    assert.equal(report.trust_keys_refused, true);
    assert.ok(
      report.notices.some((n) => /trust is given one project server or hook at a time/.test(n)),
      report.notices.join('\n'),
    );
    assert.equal(report.trust_answered, true);
    assert.equal(call?.kind, 'mcp_tool');
    assert.equal(call?.lines[0], 'Santra wants to call the tool echo of the MCP server proj, with:');
    assert.ok(call?.lines.includes('  {"text":"from nvim"}'), (call?.lines ?? []).join('\n'));
    assert.match(lastMessage(fake.requests[1]), /from nvim/);
    assert.equal(report.result_status, 'completed');
  });
});
