/**
 * The ACP adapter's pure mappings: Santra phases and approvals as ACP updates (run-view.ts), the
 * permission options (permissions.ts) and an ACP prompt as Santra prompt text (prompt-text.ts).
 * The whole exchange with a real editor client is scripts/test/acp-agent.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApproveParams, Phase } from '#protocol';
import { keepEnd, lentCapabilities } from '../src/connection/acp/lent.ts';
import { approvalOptions } from '../src/connection/acp/permissions.ts';
import {
  promptContext,
  promptText,
  promptTitle,
  UnsupportedPrompt,
} from '../src/connection/acp/prompt-text.ts';
import { RunView } from '../src/connection/acp/run-view.ts';

const ROOT = '/home/ada/project';
let seq = 0;
const base = { runId: 'run_1', sessionId: 'ses_1', agentId: 'orchestrator' };
const sub = {
  runId: 'run_1',
  sessionId: 'ses_1',
  agentId: 'reader-1',
  parentAgentId: 'orchestrator',
  agentRole: 'reader',
};
const phase = (fields: Record<string, unknown>): Phase => ({ ...base, seq: ++seq, ...fields }) as Phase;

const modify = (fields: Partial<Extract<ApproveParams, { kind: 'file_change' }>> = {}): ApproveParams => ({
  kind: 'file_change',
  sessionId: 'ses_1',
  runId: 'run_1',
  agentId: 'executor-1',
  toolCallId: 'toolu_03',
  toolName: 'str_replace',
  path: 'src/greet.ts',
  operation: 'modify',
  diff: {
    added: 1,
    removed: 1,
    hunks: [
      {
        oldStart: 1,
        oldLines: 2,
        newStart: 1,
        newLines: 2,
        lines: [
          { type: 'context', text: 'export function greet(name: string) {', oldLine: 1, newLine: 1 },
          { type: 'removed', text: "  return 'Hello ' + name;", oldLine: 2 },
          { type: 'added', text: '  return `Hello, ${name}!`;', newLine: 2 },
        ],
      },
    ],
    unifiedDiff: '--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1,2 +1,2 @@\n',
    replacement: false,
  },
  ...fields,
});

describe('RunView', () => {
  test('the top agent answers in message and thought chunks; info status lines are not shown, warnings are', () => {
    const view = new RunView({ root: ROOT });
    assert.deepEqual(view.phase(phase({ type: 'text', text: 'Hello' })), [
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } },
    ]);
    assert.deepEqual(view.phase(phase({ type: 'thinking', text: 'hmm' })), [
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } },
    ]);
    assert.deepEqual(view.phase(phase({ type: 'status', text: 'Route: agent_task' })), []);
    const [warning] = view.phase(phase({ type: 'status', text: 'Retrying in 2 s', level: 'warning' }));
    assert.equal(warning?.sessionUpdate, 'agent_message_chunk');
    assert.match(JSON.stringify(warning), /Retrying in 2 s/);
  });

  test('a tool call and its result: kind, absolute locations, fenced output, failed on error', () => {
    const view = new RunView({ root: ROOT });
    const [call] = view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 't1',
        toolName: 'read_file',
        kind: 'read',
        args: { path: 'src/a.ts', startLine: 10 },
        summary: 'read_file src/a.ts',
      }),
    );
    assert.deepEqual(call, {
      sessionUpdate: 'tool_call',
      toolCallId: 'run_1/t1',
      title: 'read_file src/a.ts',
      kind: 'read',
      status: 'in_progress',
      rawInput: { path: 'src/a.ts', startLine: 10 },
      content: [],
      locations: [{ path: `${ROOT}/src/a.ts`, line: 10 }],
    });
    const [done] = view.phase(
      phase({
        type: 'tool_result',
        toolCallId: 't1',
        toolName: 'read_file',
        status: 'ok',
        summary: '1 line',
        output: 'a ``` b',
      }),
    );
    assert.deepEqual(done, {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'run_1/t1',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '````\na ``` b\n````' } }],
      rawOutput: { status: 'ok', summary: '1 line' },
    });
    view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 't2',
        toolName: 'run_command',
        kind: 'execute',
        args: { command: 'false' },
      }),
    );
    const [failed] = view.phase(
      phase({
        type: 'tool_result',
        toolCallId: 't2',
        toolName: 'run_command',
        status: 'error',
        summary: 'exit 1',
      }),
    );
    assert.equal(failed?.sessionUpdate === 'tool_call_update' && failed.status, 'failed');
    assert.match(JSON.stringify(failed), /error: exit 1/);
  });

  test("an edit shows one diff, sent once: the approval's exact hunks when Santra asks, its arguments' when it does not", () => {
    const view = new RunView({ root: ROOT });
    const editCall = (toolCallId: string) =>
      phase({
        ...sub,
        agentId: 'executor-1',
        type: 'tool_call',
        toolCallId,
        toolName: 'str_replace',
        kind: 'edit',
        args: { path: 'src/greet.ts', oldStr: 'a', newStr: 'b' },
        summary: 'str_replace src/greet.ts',
      });
    const editResult = (toolCallId: string) =>
      phase({
        ...sub,
        agentId: 'executor-1',
        type: 'tool_result',
        toolCallId,
        toolName: 'str_replace',
        status: 'ok',
        summary: 'updated',
      });
    // Asked about: the row waits with no diff; the approval brings the exact one; the end keeps it.
    const [call] = view.phase(editCall('toolu_03'));
    assert.equal(call?.sessionUpdate === 'tool_call' && call.title, 'executor-1: str_replace src/greet.ts');
    assert.equal(call?.sessionUpdate === 'tool_call' && call.status, 'pending');
    assert.deepEqual(call?.sessionUpdate === 'tool_call' && call.content, []);
    const approval = view.approval(modify());
    assert.equal(approval.toolCallId, 'run_1/toolu_03');
    assert.equal(approval.title, 'Edit src/greet.ts');
    assert.deepEqual(approval.content, [
      {
        type: 'diff',
        path: `${ROOT}/src/greet.ts`,
        oldText: "export function greet(name: string) {\n  return 'Hello ' + name;\n",
        newText: 'export function greet(name: string) {\n  return `Hello, ${name}!`;\n',
      },
    ]);
    const [done] = view.phase(editResult('toolu_03'));
    assert.deepEqual(done, {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'run_1/toolu_03',
      status: 'completed',
      rawOutput: { status: 'ok', summary: 'updated' },
    });
    // Allowed without asking (after "always allow"): the arguments' diff, once, when it is done.
    const [quiet] = view.phase(editCall('toolu_04'));
    assert.deepEqual(quiet?.sessionUpdate === 'tool_call' && quiet.content, []);
    const [quietDone] = view.phase(editResult('toolu_04'));
    assert.deepEqual(quietDone?.sessionUpdate === 'tool_call_update' && quietDone.content, [
      { type: 'diff', path: `${ROOT}/src/greet.ts`, oldText: 'a', newText: 'b' },
    ]);
  });

  test('a protected approval says why and offers no "allow all"; a command shows the exact line', () => {
    const view = new RunView({ root: ROOT });
    const guarded = modify({ protected: true, protectedReason: 'git internals' });
    const shown = view.approval(guarded);
    assert.match(JSON.stringify(shown.content), /Protected location: git internals/);
    // Unmistakable without reading the content: its title, its kind, its allow option.
    assert.match(String(shown.title), /^⚠ PROTECTED — /);
    assert.equal(shown.kind, 'other');
    assert.equal(view.approval(modify()).kind, 'edit');
    assert.deepEqual(
      approvalOptions(guarded, false).map((option) => [option.optionId, option.name]),
      [
        ['allow', 'Allow this change to a protected location'],
        ['reject', 'Reject'],
      ],
    );
    assert.deepEqual(
      approvalOptions(modify(), true).map((option) => [option.kind, option.name]),
      [
        ['allow_once', 'Allow'],
        ['allow_always', 'Always allow edits and commands'],
        ['reject_once', 'Reject'],
        ['reject_once', 'Reject with feedback…'],
      ],
    );
    const command = view.approval({
      kind: 'command',
      sessionId: 'ses_1',
      runId: 'run_1',
      agentId: 'executor-1',
      toolCallId: 'toolu_09',
      toolName: 'run_command',
      command: 'npm test',
      cwd: ROOT,
    });
    assert.equal(command.kind, 'execute');
    assert.match(JSON.stringify(command.content), /\$ npm test/);
    const commandParams = {
      kind: 'command' as const,
      sessionId: 'ses_1',
      runId: 'run_1',
      agentId: 'executor-1',
      toolCallId: 'toolu_10',
      toolName: 'run_command',
      command: 'npm test',
      cwd: ROOT,
    };
    // The same names for a command: "always" covers edits and commands alike, and says so.
    assert.deepEqual(
      approvalOptions(commandParams, false).map((option) => option.name),
      ['Allow', 'Always allow edits and commands', 'Reject'],
    );
    assert.deepEqual(
      approvalOptions({ ...commandParams, protected: true }, false).map((option) => option.name),
      ['Allow this command, which touches a protected location', 'Reject'],
    );
  });

  test("a command run in the editor's terminal shows it on its row, and keeps it when it ends", () => {
    const view = new RunView({ root: ROOT });
    view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 't1',
        toolName: 'run_command',
        kind: 'execute',
        args: { command: 'ls' },
      }),
    );
    assert.deepEqual(view.terminal('run_1', 't1', 'term_7'), {
      toolCallId: 'run_1/t1',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 'term_7' }],
    });
    assert.equal(view.terminal('run_1', 'unknown', 'term_8'), undefined, 'no row, nothing to show it on');
    const [ok] = view.phase(
      phase({
        type: 'tool_result',
        toolCallId: 't1',
        toolName: 'run_command',
        status: 'ok',
        summary: 'exit 0',
        output: 'a.txt',
      }),
    );
    // The terminal is on the row already: the end leaves it there and sends no content again.
    assert.equal(ok?.sessionUpdate === 'tool_call_update' && ok.status, 'completed');
    assert.equal(ok !== undefined && 'content' in ok, false);

    view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 't2',
        toolName: 'run_command',
        kind: 'execute',
        args: { command: 'false' },
      }),
    );
    view.terminal('run_1', 't2', 'term_9');
    const [failed] = view.phase(
      phase({
        type: 'tool_result',
        toolCallId: 't2',
        toolName: 'run_command',
        status: 'error',
        summary: 'exit 1',
      }),
    );
    assert.deepEqual(failed?.sessionUpdate === 'tool_call_update' && failed.content, [
      { type: 'terminal', terminalId: 'term_9' },
      { type: 'content', content: { type: 'text', text: 'error: exit 1' } },
    ]);
  });

  test('a sub-agent is a think row: its text streams into it, its thinking is not shown, its end completes it', () => {
    const view = new RunView({ root: ROOT });
    const [opened] = view.phase(phase({ ...sub, type: 'section', title: 'Reader: the auth module' }));
    assert.deepEqual(opened, {
      sessionUpdate: 'tool_call',
      toolCallId: 'run_1/agent/reader-1',
      title: 'Reader: the auth module',
      kind: 'think',
      status: 'in_progress',
    });
    assert.deepEqual(view.phase(phase({ ...sub, type: 'thinking', text: 'hm' })), []);
    view.phase(phase({ ...sub, type: 'text', text: 'Auth ' }));
    const [streamed] = view.phase(phase({ ...sub, type: 'text', text: 'uses JWT.' }));
    assert.match(JSON.stringify(streamed), /Auth uses JWT\./);
    const [ended] = view.phase(
      phase({ ...sub, type: 'complete', status: 'completed', output: 'JWT, in src/auth.ts' }),
    );
    assert.equal(ended?.sessionUpdate === 'tool_call_update' && ended.status, 'completed');
    assert.match(JSON.stringify(ended), /JWT, in src\/auth\.ts/);
  });

  test("one delegation is one row: spawn_agent is not a row of its own, its sub-agent's row is; a spawn that started no agent is shown when it ends", () => {
    const view = new RunView({ root: ROOT });
    const rows = (updates: ReturnType<RunView['phase']>) =>
      updates.filter((update) => update.sessionUpdate === 'tool_call');
    const spawn = (toolCallId: string, args: Record<string, unknown>, toolName = 'spawn_agent') =>
      phase({ type: 'tool_call', toolCallId, toolName, kind: 'agent', args, summary: `${toolName} x` });
    const spawned = (toolCallId: string, toolName = 'spawn_agent', status = 'ok') =>
      phase({
        type: 'tool_result',
        toolCallId,
        toolName,
        status,
        summary: 'done',
        output: '## reader-1: done',
      });
    const updates = [
      ...view.phase(spawn('o1', { agentId: 'reader', task: 'Read the auth module' })),
      ...view.phase(phase({ ...sub, type: 'section', title: 'Reader: Read the auth module' })),
      ...view.phase(phase({ ...sub, type: 'complete', status: 'completed', output: 'JWT.' })),
      ...view.phase(spawned('o1')),
    ];
    assert.deepEqual(
      rows(updates).map((row) => row.sessionUpdate === 'tool_call' && row.title),
      ['Reader: Read the auth module'],
    );
    assert.deepEqual(
      updates.map((update) => ('toolCallId' in update ? update.toolCallId : update.sessionUpdate)),
      ['run_1/agent/reader-1', 'run_1/agent/reader-1'],
      'the sub-agent row, then its end: nothing for the spawn call itself',
    );

    // spawn_agents: a row per agent started, none for the call.
    const many = [
      ...view.phase(spawn('o2', { agents: [{ agentId: 'reader' }, { agentId: 'thinker' }] }, 'spawn_agents')),
      ...view.phase(phase({ ...sub, agentId: 'reader-2', type: 'section', title: 'Reader: a' })),
      ...view.phase(
        phase({ ...sub, agentId: 'thinker-1', agentRole: 'thinker', type: 'section', title: 'Thinker: b' }),
      ),
      ...view.phase(spawned('o2', 'spawn_agents')),
    ];
    assert.deepEqual(
      rows(many).map((row) => row.sessionUpdate === 'tool_call' && row.title),
      ['Reader: a', 'Thinker: b'],
    );

    // No agent started (an unknown one): the call is a row after all, failed, saying why.
    assert.deepEqual(view.phase(spawn('o3', { agentId: 'wizard', task: 'x' })), []);
    const [refused] = view.phase({
      ...spawned('o3', 'spawn_agent', 'error'),
      output: 'There is no agent "wizard".',
    } as Phase);
    assert.equal(refused?.sessionUpdate === 'tool_call' && refused.status, 'failed');
    assert.match(JSON.stringify(refused), /There is no agent \\"wizard\\"/);
  });

  test("a row's title is one line with single spaces", () => {
    const view = new RunView({ root: ROOT });
    const [call] = view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 't1',
        toolName: 'grep_search',
        kind: 'search',
        args: { pattern: '  a\tb' },
        summary: 'grep_search   a\tb',
      }),
    );
    assert.equal(call?.sessionUpdate === 'tool_call' && call.title, 'grep_search a b');
  });

  test('todo_write is the plan, not a row; a run ended by task_completed shows its output once', () => {
    const view = new RunView({ root: ROOT });
    const [plan] = view.phase(
      phase({
        type: 'tool_call',
        toolCallId: 'p',
        toolName: 'todo_write',
        args: { todos: [{ content: 'Read', status: 'completed' }] },
      }),
    );
    assert.deepEqual(plan, {
      sessionUpdate: 'plan',
      entries: [{ content: 'Read', status: 'completed', priority: 'medium' }],
    });
    assert.deepEqual(
      view.phase(
        phase({ type: 'tool_result', toolCallId: 'p', toolName: 'todo_write', status: 'ok', summary: '1/1' }),
      ),
      [],
    );
    assert.match(
      JSON.stringify(view.phase(phase({ type: 'complete', status: 'completed', output: 'Done.' }))),
      /Done\./,
    );
    view.phase(phase({ runId: 'run_2', type: 'text', text: 'All done.' }));
    assert.deepEqual(
      view.phase(phase({ runId: 'run_2', type: 'complete', status: 'completed', output: 'All done.' })),
      [],
    );
  });
});

describe('promptText', () => {
  test('text, mentioned files as paths, embedded resources fenced as context', () => {
    const text = promptText(
      [
        { type: 'text', text: 'Explain' },
        { type: 'resource_link', name: 'a.ts', uri: `file://${ROOT}/src/a.ts` },
        { type: 'resource', resource: { uri: `file://${ROOT}/src/b.ts`, text: 'const b = "```";' } },
      ],
      ROOT,
    );
    assert.equal(
      text,
      'Explain @src/a.ts @src/b.ts\n\nContext from src/b.ts (as the editor has it):\n````\nconst b = "```";\n````',
    );
  });

  test('text cut at mentions, as Zed sends it, joins without doubled spaces; the title is one single-spaced line', () => {
    const text = promptText(
      [
        { type: 'text', text: 'Why does ' },
        { type: 'resource_link', name: 'a.ts', uri: `file://${ROOT}/src/a.ts` },
        { type: 'text', text: ' call ' },
        { type: 'resource', resource: { uri: `file://${ROOT}/src/b.ts`, text: 'export {};' } },
        { type: 'text', text: ' twice?' },
      ],
      ROOT,
    );
    assert.equal(text.split('\n')[0], 'Why does @src/a.ts call @src/b.ts twice?');
    assert.equal(promptTitle('  Fix  the\tbug in @src/a.ts \n\nmore'), 'Fix the bug in @src/a.ts');
  });

  test("a selection (Zed's #L10:20) goes as the prompt's context, named in the text, not copied; mentions inside the workspace too", () => {
    const blocks = [
      { type: 'text' as const, text: 'Why ' },
      {
        type: 'resource' as const,
        resource: { uri: `file://${ROOT}/src/a.ts#L10:12`, text: 'selected lines' },
      },
      { type: 'text' as const, text: ' and ' },
      { type: 'resource_link' as const, name: 'b.ts', uri: `file://${ROOT}/src/b.ts` },
      { type: 'resource_link' as const, name: 'c.ts', uri: `file://${ROOT}/src/a.ts#L3` },
      { type: 'resource_link' as const, name: 'x', uri: 'file:///elsewhere/x.ts' },
      { type: 'resource_link' as const, name: 'web', uri: 'https://example.com/a' },
    ];
    const text = promptText(blocks, ROOT);
    assert.equal(
      text.split('\n')[0],
      'Why @src/a.ts:10-12 and @src/b.ts @src/a.ts:3 @/elsewhere/x.ts @https://example.com/a',
    );
    assert.doesNotMatch(text, /selected lines/, 'the server reads the selection itself');
    assert.deepEqual(promptContext(blocks, ROOT), {
      files: [
        {
          path: `${ROOT}/src/a.ts`,
          selections: [
            { start: { line: 10 }, end: { line: 12 } },
            { start: { line: 3 }, end: { line: 3 } },
          ],
        },
        { path: `${ROOT}/src/b.ts` },
      ],
    });
    assert.equal(promptContext([{ type: 'text', text: 'no files' }], ROOT), undefined);
  });

  test('images and empty prompts are refused with what to send instead', () => {
    assert.throws(
      () =>
        promptText(
          [
            { type: 'text', text: 'x' },
            { type: 'image', data: '', mimeType: 'image/png' },
          ],
          ROOT,
        ),
      (error: unknown) => error instanceof UnsupportedPrompt && /prompt\[1\] is an image/.test(error.message),
    );
    assert.throws(() => promptText([{ type: 'text', text: '  ' }], ROOT), /the prompt is empty/);
  });
});

describe('lent', () => {
  test('the Santra link declares exactly what the ACP client offers', () => {
    assert.deepEqual(lentCapabilities({}), {});
    assert.deepEqual(
      lentCapabilities({ fs: { readTextFile: false, writeTextFile: false }, terminal: false }),
      {},
    );
    assert.deepEqual(lentCapabilities({ fs: { readTextFile: true } }), { fs: { readTextFile: true } });
    assert.deepEqual(lentCapabilities({ fs: { readTextFile: true, writeTextFile: true }, terminal: true }), {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    });
  });

  test('output over the byte limit keeps its end, cut at a character boundary', () => {
    assert.equal(keepEnd('hello', 5), 'hello');
    assert.equal(keepEnd('hello world', 5), 'world');
    // "é" is two bytes: a cut inside it moves forward to the next character.
    assert.equal(keepEnd('aéb', 2), 'b');
    assert.equal(keepEnd('aéb', 3), 'éb');
  });
});
