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
import { promptText, UnsupportedPrompt } from '../src/connection/acp/prompt-text.ts';
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

  test('an edit shows its diff from the arguments, and the approval replaces it with the exact hunks', () => {
    const view = new RunView({ root: ROOT });
    const [call] = view.phase(
      phase({
        ...sub,
        agentId: 'executor-1',
        type: 'tool_call',
        toolCallId: 'toolu_03',
        toolName: 'str_replace',
        kind: 'edit',
        args: { path: 'src/greet.ts', oldStr: 'a', newStr: 'b' },
        summary: 'str_replace src/greet.ts',
      }),
    );
    assert.equal(call?.sessionUpdate === 'tool_call' && call.title, 'executor-1: str_replace src/greet.ts');
    assert.equal(call?.sessionUpdate === 'tool_call' && call.status, 'pending');
    assert.deepEqual(call?.sessionUpdate === 'tool_call' && call.content, [
      { type: 'diff', path: `${ROOT}/src/greet.ts`, oldText: 'a', newText: 'b' },
    ]);
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
    const [done] = view.phase(
      phase({
        ...sub,
        agentId: 'executor-1',
        type: 'tool_result',
        toolCallId: 'toolu_03',
        toolName: 'str_replace',
        status: 'ok',
        summary: 'updated',
      }),
    );
    assert.deepEqual(done?.sessionUpdate === 'tool_call_update' && done.content, approval.content);
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
      approvalOptions(modify(), true).map((option) => option.kind),
      ['allow_once', 'allow_always', 'reject_once', 'reject_once'],
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
    assert.deepEqual(ok?.sessionUpdate === 'tool_call_update' && ok.content, [
      { type: 'terminal', terminalId: 'term_7' },
    ]);

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
      'Explain @src/a.ts\n\nContext from src/b.ts (as the editor has it):\n````\nconst b = "```";\n````',
    );
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
