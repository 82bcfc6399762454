/**
 * session/import's readers and conversion, on transcripts of the shapes the agents write
 * (server/test/fixtures/transcripts/, SOURCES.md names where each shape comes from): Claude Code's
 * record tree, Codex's rollouts and pi's version-3 tree become conversations the providers can
 * send — tool calls as Santra's tools where they match (every row of the table checked against
 * the tool registry), as bounded text where they do not, every call answered, ids both wire APIs
 * take — and a transcript that cannot be read is refused whole, naming its file and line.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ImportFormat } from '#protocol';
import type { AssistantBlock, ChatMessage, ToolCallBlock, UserBlock } from '../src/providers/messages.ts';
import { TOOL_CALL_ID } from '../src/providers/tool-call-id.ts';
import { patchCall } from '../src/sessions/import/apply-patch.ts';
import { readClaude } from '../src/sessions/import/claude.ts';
import { readCodex } from '../src/sessions/import/codex.ts';
import { type Conversion, convert, type RunDraft } from '../src/sessions/import/conversation.ts';
import { readPi } from '../src/sessions/import/pi.ts';
import { mapToolCall, TOOL_MAPS } from '../src/sessions/import/tool-map.ts';
import { type Transcript, TranscriptError } from '../src/sessions/import/transcript.ts';
import { countRuns, headerRecord, runRecords } from '../src/sessions/import/write-records.ts';
import { exportMarkdown } from '../src/sessions/export.ts';
import { foldSession } from '../src/sessions/summary.ts';
import { allTools } from '../src/tools/registry.ts';
import { CLAUDE, CLAUDE_COMPACTED, CODEX, PI, transcript } from './helpers/transcripts.ts';

const READERS = { claude: readClaude, codex: readCodex, pi: readPi } as const;
const fixture = transcript;

function conversionOf(
  format: ImportFormat,
  name: string,
): { transcript: Transcript; conversion: Conversion } {
  const read = READERS[format](fixture(name), name);
  return { transcript: read, conversion: convert(read, name) };
}

const messages = (run: RunDraft) =>
  run.items.flatMap((item) => (item.type === 'message' ? [item.message] : []));
type Block = AssistantBlock | UserBlock;
const blocks = (run: RunDraft) => messages(run).flatMap((message): Block[] => message.content);
const calls = (run: RunDraft) => blocks(run).filter((b): b is ToolCallBlock => b.type === 'tool_call');
const texts = (run: RunDraft) => blocks(run).flatMap((b) => (b.type === 'text' ? [b.text] : []));

/** What a provider requires of a conversation, whatever the transcript had. */
function assertSendable(conversation: readonly ChatMessage[], where: string): void {
  const seen = new Set<string>();
  conversation.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const ids = message.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
    for (const id of ids) {
      for (const pattern of Object.values(TOOL_CALL_ID))
        assert.match(id, pattern, `${where}: ${id} is a valid id`);
      assert.ok(!seen.has(id), `${where}: ${id} is used once`);
      seen.add(id);
    }
    if (ids.length === 0) return;
    const next = conversation[index + 1];
    assert.equal(next?.role, 'user', `${where}: the calls of message ${index} are answered`);
    const answered = next.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolCallId] : []));
    assert.deepEqual(
      answered,
      ids,
      `${where}: message ${index + 1} answers each call of message ${index}, in order`,
    );
    const first = next.content.findIndex((b) => b.type !== 'tool_result');
    assert.ok(first === -1 || first === answered.length, `${where}: tool results come first`);
  });
  for (const [index, message] of conversation.entries())
    for (const block of message.content)
      if (block.type === 'tool_result')
        assert.equal(
          (conversation[index - 1]?.content ?? []).some(
            (b) => b.type === 'tool_call' && b.id === block.toolCallId,
          ),
          true,
          `${where}: the result ${block.toolCallId} answers a call just before it`,
        );
}

/** The conversation a session of these runs sends the model, folded from its records. */
function folded(format: ImportFormat, runs: readonly RunDraft[]) {
  const records = [
    headerRecord('ses_import-test', '/work/project', '2026-01-01T00:00:00.000Z'),
    ...runRecords(runs, {
      sessionId: 'ses_import-test',
      from: format,
      runsBefore: 0,
      lastSeq: 0,
      now: '2026-01-01T00:00:00.000Z',
    }),
  ];
  const state = foldSession(records);
  assert.ok(state);
  return { state, records };
}

describe('Claude Code transcripts', () => {
  const { transcript, conversion } = conversionOf('claude', CLAUDE);
  const [first, second] = conversion.runs as [RunDraft, RunDraft];

  test('the conversation is the chain back from the last main-line record: not the branch rewound from, not the sub-agent', () => {
    assert.equal(transcript.id, '4f35e220-c435-4cf7-b9b9-f40426042847');
    assert.equal(transcript.cwd, '/home/ada/project');
    assert.deepEqual(
      conversion.runs.map((run) => run.prompt),
      [
        'Make greet() use a template string, then run the tests',
        'Check that the docs name a Node version whose test runner is stable',
      ],
    );
    const all = conversion.runs.flatMap((run) => texts(run)).join('\n');
    assert.doesNotMatch(
      all,
      /Rename greet to hello everywhere|search for every use of greet/,
      'the abandoned branch',
    );
    assert.equal(
      calls(second).some((call) => call.name === 'grep_search'),
      false,
      "the sub-agent's own calls",
    );
    // summary, queue-operation, file-history-snapshot, progress; the turn_duration notice;
    // the abandoned branch (2) and the sidechain (4).
    assert.equal(transcript.skippedLines, 11);
    assert.deepEqual(transcript.warnings, []);
  });

  test('one answer written as three records (thinking, text, tool_use) is one message; its thinking is never sent', () => {
    const answer = messages(first)[1];
    assert.equal(answer?.role, 'assistant');
    assert.deepEqual(
      answer.content.map((b) => b.type),
      ['thinking', 'text', 'tool_call'],
    );
    const thinking = answer.content[0];
    assert.equal(
      thinking?.type === 'thinking' && thinking.context,
      'imported:claude',
      'bound to Claude Code, not to a Santra model',
    );
  });

  test("Claude Code's tools become Santra's where they match, with their arguments renamed and paths made relative", () => {
    assert.deepEqual(
      [...calls(first), ...calls(second)].map((call) => [call.id, call.name, call.args]),
      [
        ['toolu_01NzjV452AGVQR51StZtarfB', 'read_file', { path: 'src/greet.ts' }],
        [
          'toolu_01JgK6mBq1wYx8V3cRtLp2Ns',
          'str_replace',
          {
            path: 'src/greet.ts',
            oldStr: "  return 'Hello ' + name;",
            newStr: '  return `Hello, ${name}!`;',
          },
        ],
        ['toolu_01B7rN2xKwQz5Yc8Tv3Lm6Hp', 'run_command', { command: 'npm test', timeout: 120 }],
        [
          'toolu_01WsQ4eR6tY8uI0oP2aS4dF6',
          'web_search',
          { query: 'node --test runner stable since which version' },
        ],
        [
          'toolu_01Gh8Jk0Lz2Xc4Vb6Nm8Qw0E',
          'spawn_agent',
          {
            agentId: 'reader',
            task: 'Find where the docs name the required Node version and report the file, line and version.',
          },
        ],
        ['toolu_01Rt5Yu7Io9Pa1Sd3Fg5Hj7K', 'run_command', { command: 'node --version' }],
      ],
    );
  });

  test('a tool with no match is bounded text, call and result, and never a call the model could imitate', () => {
    const all = texts(second);
    assert.ok(
      all.includes('[Claude Code used mcp__github__search_issues: {"q":"repo:ada/project node version"}]'),
    );
    assert.ok(
      all.some((text) =>
        text.startsWith('[What mcp__github__search_issues gave Claude Code: {"total_count":1'),
      ),
    );
    assert.equal(
      calls(second).some((call) => call.name.startsWith('mcp__')),
      false,
    );
    assert.deepEqual(countRuns(conversion.runs), {
      runs: 2,
      messages: 17,
      toolCalls: 7,
      mappedToolCalls: 6,
      textToolCalls: 1,
    });
  });

  test('a call the transcript has no result for (Claude Code stopped) is answered as interrupted', () => {
    const last = messages(second).at(-1);
    assert.equal(last?.role, 'user');
    const result = last.content[0];
    assert.equal(result?.type, 'tool_result');
    assert.equal(result.type === 'tool_result' && result.isError, true);
    assert.match(
      result.type === 'tool_result' ? result.output : '',
      /No result of this call is in the Claude Code transcript/,
    );
  });

  test('the usage of each run is summed per answer (one answer, several records, counted once), and is not the session’s', () => {
    assert.deepEqual(first.usage, {
      inputTokens: 12,
      outputTokens: 340,
      cacheReadTokens: 45356,
      cacheWriteTokens: 21728,
    });
    assert.equal(first.model, 'anthropic/claude-sonnet-4-5-20250929');
    const { state } = folded('claude', conversion.runs);
    assert.deepEqual(state.usage, {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    assert.equal(state.costUsd, 0);
    assert.equal(state.model, undefined, "the transcript's model is not the session's");
    assert.equal(state.imported?.from, 'claude');
    assert.equal(
      state.imported?.usage.outputTokens,
      (first.usage?.outputTokens ?? 0) + (second.usage?.outputTokens ?? 0),
    );
    assert.equal(state.title, 'Make greet() use a template string, then run the tests');
  });

  test('a compaction is a compaction: the summary, then what came after', () => {
    const compacted = conversionOf('claude', CLAUDE_COMPACTED).conversion;
    assert.deepEqual(
      compacted.runs.map((run) => run.prompt),
      ['What does src/greet.ts export?', '/compact', 'And what does it return?'],
    );
    const { state } = folded('claude', compacted.runs);
    assert.deepEqual(
      state.messages.map((message) => (message.content[0] as { text: string }).text.split('\n')[0]),
      [
        'This conversation was compacted by Claude Code. Its summary of what came before:',
        'And what does it return?',
        'A greeting: `Hello, ${name}!`.',
      ],
    );
  });
});

describe('Codex rollouts', () => {
  const { transcript, conversion } = conversionOf('codex', CODEX);
  const [first, second] = conversion.runs as [RunDraft, RunDraft];

  test("the person's prompts, without the instructions Codex puts into the conversation", () => {
    assert.equal(transcript.id, '019c8a53-a0dd-7130-bcd7-95445d84846a');
    assert.deepEqual(
      conversion.runs.map((run) => run.prompt),
      [
        'Make greet() use a template string and run the tests',
        'Which Node release made the test runner stable? Look at the screenshot in docs/ too.',
      ],
    );
    const all = conversion.runs.flatMap(texts).join('\n');
    assert.doesNotMatch(all, /AGENTS\.md|environment_context|permissions instructions/);
    assert.equal(first.model, 'openai/gpt-5.3-codex');
  });

  test("exec_command, apply_patch, update_plan and shell_command as Santra's tools; view_image and the web search as text", () => {
    assert.deepEqual(
      calls(first).map((call) => [call.name, call.args]),
      [
        ['run_command', { command: "sed -n '1,80p' src/greet.ts" }],
        [
          'str_replace',
          {
            path: 'src/greet.ts',
            oldStr: "export function greet(name: string) {\n  return 'Hello ' + name;\n}",
            newStr: 'export function greet(name: string) {\n  return `Hello, ${name}!`;\n}',
          },
        ],
        [
          'todo_write',
          {
            todos: [
              { content: 'Use a template string in greet()', status: 'completed' },
              { content: 'Run the tests', status: 'in_progress' },
            ],
          },
        ],
        ['run_command', { command: 'npm test', timeout: 120 }],
      ],
    );
    assert.deepEqual(calls(second), []);
    assert.deepEqual(texts(second).slice(1, 4), [
      '[Codex searched the web for "node test runner stable release"]',
      '[Codex used view_image: {"path":"/home/ada/project/docs/runner.png"}]',
      '[What view_image gave Codex: attached local image path]',
    ]);
    const patchResult = messages(first)
      .flatMap((m): Block[] => m.content)
      .find((b) => b.type === 'tool_result' && b.toolName === 'str_replace');
    assert.equal(
      patchResult?.type === 'tool_result' && patchResult.output,
      'Success. Updated the following files:\nM src/greet.ts\n',
    );
  });

  test('the tokens of each turn come from the running totals of token_count, cached input apart', () => {
    assert.deepEqual(first.usage, {
      inputTokens: 80023 - 60800,
      outputTokens: 1102,
      cacheReadTokens: 60800,
      cacheWriteTokens: 0,
      reasoningTokens: 320,
    });
    assert.equal(second.usage?.outputTokens, 1180 - 1102);
  });
});

describe('pi sessions', () => {
  const { transcript, conversion } = conversionOf('pi', PI);

  test('the path from the last entry back to the root: the branch left with /tree is its summary', () => {
    assert.equal(transcript.id, '1f9d2a3c-5b6e-4f70-8a91-b2c3d4e5f607');
    assert.deepEqual(
      conversion.runs.map((run) => run.prompt),
      ['Rename greet to hello in src/greet.ts', 'Run the tests', 'Commit it'],
    );
    const all = conversion.runs.flatMap(texts).join('\n');
    assert.doesNotMatch(all, /keep greet and add hello as an alias\n|I'll add the alias/);
    assert.match(
      all,
      /A summary of the branch this conversation came back from:\n\nThe user asked to keep greet/,
    );
    assert.match(
      all,
      /Ran `git status --short`\n```\n M src\/greet.ts\n```/,
      'a command the person ran, as pi sends it',
    );
    assert.deepEqual(
      conversion.runs.map((run) => run.model),
      ['anthropic/claude-sonnet-4-5', 'openai/gpt-5.1-codex', 'openai/gpt-5.1-codex'],
    );
  });

  test("read, edit and bash as Santra's tools; an id neither wire API takes is replaced, in the call and its result", () => {
    const all = conversion.runs.flatMap(calls);
    assert.deepEqual(
      all.map((call) => [call.name, call.args]),
      [
        ['read_file', { path: 'src/greet.ts' }],
        [
          'str_replace',
          { path: 'src/greet.ts', oldStr: 'export function greet(', newStr: 'export function hello(' },
        ],
        ['run_command', { command: 'npm test', timeout: 120 }],
      ],
    );
    assert.match(all[2]?.id ?? '', /^imp_[0-9a-f]{24}$/);
  });
});

describe('every conversion is one the providers can send', () => {
  for (const [format, name] of [
    ['claude', CLAUDE],
    ['claude', CLAUDE_COMPACTED],
    ['codex', CODEX],
    ['pi', PI],
  ] as const)
    test(name, () => {
      const { conversion } = conversionOf(format, name);
      const { state, records } = folded(format, conversion.runs);
      assertSendable(state.messages, name);
      // Phases number on without a gap, and each run ends.
      const seqs = records.flatMap((r) => (r.type === 'phase' ? [r.phase.seq] : []));
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
      );
      assert.equal(records.filter((r) => r.type === 'run_end').length, conversion.runs.length);
      assert.ok(
        records.every((r) => r.type !== 'run_end' || (r.costUsd === 0 && r.usage.outputTokens === 0)),
      );
      assert.equal(
        records.some((r) => r.type === 'model_output'),
        false,
        'no model call was made here',
      );
    });

  test('what no provider takes is mended: reasoning alone, a result without its call, an id used twice', () => {
    const steps: Transcript['steps'] = [
      { type: 'prompt', text: 'one' },
      { type: 'assistant', blocks: [{ type: 'thinking', text: 'stopped while thinking' }] },
      { type: 'tool_result', callId: 'call_lost', output: 'x', isError: false, line: 3 },
      { type: 'prompt', text: 'two' },
      {
        type: 'assistant',
        blocks: [{ type: 'tool_call', id: 'call_1', name: 'shell_command', args: { command: 'ls' } }],
      },
      { type: 'tool_result', callId: 'call_1', output: 'a', isError: false, line: 6 },
      {
        type: 'assistant',
        blocks: [{ type: 'tool_call', id: 'call_1', name: 'shell_command', args: { command: 'pwd' } }],
      },
      { type: 'tool_result', callId: 'call_1', output: '/p', isError: false, line: 8 },
    ];
    const conversion = convert({ format: 'codex', steps, skippedLines: 0, warnings: [] }, 'r.jsonl');
    const all = conversion.runs.flatMap(messages);
    assert.deepEqual(
      all.map((m) => m.role),
      ['user', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.deepEqual(conversion.warnings, [
      'line 3: left out the result of tool call call_lost, whose call is not in the conversation',
    ]);
    assert.deepEqual(
      conversion.runs.flatMap(calls).map((call) => call.id),
      ['call_1', 'call_1_2'],
    );
    assertSendable(all, 'mended');
  });

  test('the check above fails on a conversation with an unanswered call', () => {
    const broken: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'toolu_1', name: 'read_file', args: {}, argsText: '{}' }],
      },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ];
    assert.throws(() => assertSendable(broken, 'broken'), /answers each call/);
  });

  test('an exported imported session reads as a transcript: prompts, answers and the tools used', () => {
    const { records } = folded('claude', conversionOf('claude', CLAUDE).conversion.runs);
    const markdown = exportMarkdown(records);
    assert.match(
      markdown,
      /## You\n\nMake greet\(\) use a template string, then run the tests\n\n## Santra\n\nI'll read the file first\./,
    );
    assert.match(markdown, /- `read_file src\/greet\.ts`\n {2}→ 4 lines/);
    assert.match(markdown, /- `Claude Code: mcp__github__search_issues`/);
    assert.match(
      markdown,
      /- Tokens: 0 in, 0 out; cost \$0\.0000\n- Imported from Claude Code, whose tokens are not counted above: 24 in, 585 out\n/,
    );
  });
});

/** One call of each row of the table, as the agent would make it. */
const SAMPLES: Record<ImportFormat, Record<string, unknown>> = {
  claude: {
    Read: { file_path: '/p/src/a.ts', offset: 10, limit: 20 },
    Write: { file_path: '/p/a.txt', content: 'x\n' },
    Edit: { file_path: '/p/a.txt', old_string: 'x', new_string: 'y' },
    MultiEdit: {
      file_path: '/p/a.txt',
      edits: [
        { old_string: 'x', new_string: 'y' },
        { old_string: 'z', new_string: '' },
      ],
    },
    Bash: { command: 'ls', timeout: 5000, description: 'List' },
    Grep: { pattern: 'foo\\(', path: '/p/src', glob: '*.ts', '-i': true, output_mode: 'content' },
    Glob: { pattern: '**/*.md', path: '/p/docs' },
    LS: { path: '/p' },
    WebFetch: { url: 'https://example.com/', prompt: 'Summarise' },
    WebSearch: { query: 'node test runner' },
    TodoWrite: { todos: [{ content: 'Do it', status: 'pending', activeForm: 'Doing it' }] },
    Task: { description: 'Look', prompt: 'Find the config', subagent_type: 'general-purpose' },
  },
  codex: {
    shell: { command: ['bash', '-lc', 'ls -la'], workdir: '/p/src', timeout_ms: 10_000 },
    container_exec: { command: ['git', 'status', '--short'] },
    shell_command: { command: 'npm test', workdir: '/p' },
    exec_command: { cmd: 'rg -n foo', workdir: '/p', yield_time_ms: 1000 },
    local_shell: { type: 'exec', command: ['ls'], working_directory: '/p' },
    apply_patch: '*** Begin Patch\n*** Add File: /p/new.txt\n+hello\n*** End Patch',
    update_plan: { plan: [{ step: 'One', status: 'pending' }] },
    read_file: { file_path: '/p/a.ts', offset: 1, limit: 40 },
    list_dir: { dir_path: '/p/src' },
    grep_files: { pattern: 'foo', include: '*.rs', path: '/p' },
  },
  pi: {
    read: { path: 'src/a.ts', offset: 5, limit: 5 },
    bash: { command: 'ls', timeout: 30 },
    edit: { path: 'a.txt', oldText: 'x', newText: 'y' },
    write: { path: 'a.txt', content: 'x' },
    grep: { pattern: 'a.b(', literal: true, ignoreCase: true, glob: '*.ts' },
    find: { pattern: '*.ts', path: 'src' },
    ls: {},
  },
};

describe('the table of matching tools', () => {
  const tools = new Map(allTools().map((tool) => [tool.name, tool]));
  for (const format of ['claude', 'codex', 'pi'] as const)
    test(`every ${format} row gives a call of a Santra tool, of its kind, that its schema accepts`, () => {
      assert.deepEqual(
        Object.keys(SAMPLES[format]).sort(),
        Object.keys(TOOL_MAPS[format]).sort(),
        'a sample per row',
      );
      for (const [name, args] of Object.entries(SAMPLES[format])) {
        const call = mapToolCall(format, name, args, '/p');
        assert.ok(call, `${format} ${name} maps`);
        const tool = tools.get(call.name);
        assert.ok(tool, `${call.name} is one of Santra's tools`);
        assert.equal(call.kind, tool.kind, `${call.name}'s kind`);
        const parsed = tool.parameters.safeParse(call.args);
        assert.ok(
          parsed.success,
          `${format} ${name} → ${call.name} ${JSON.stringify(call.args)}: ${parsed.error?.message}`,
        );
        assert.ok(
          Object.values(call.args).every((value) => typeof value !== 'string' || !value.startsWith('/p/')),
          'paths under the working directory are relative',
        );
      }
    });

  test('the arguments that need converting are converted', () => {
    assert.deepEqual(mapToolCall('claude', 'Read', SAMPLES.claude.Read, '/p')?.args, {
      path: 'src/a.ts',
      startLine: 10,
      endLine: 29,
    });
    assert.deepEqual(mapToolCall('codex', 'shell', SAMPLES.codex.shell, '/p')?.args, {
      command: 'ls -la',
      cwd: 'src',
      timeout: 10,
    });
    assert.deepEqual(mapToolCall('codex', 'container_exec', SAMPLES.codex.container_exec, '/p')?.args, {
      command: 'git status --short',
    });
    assert.deepEqual(mapToolCall('pi', 'grep', SAMPLES.pi.grep, '/p')?.args, {
      pattern: 'a\\.b\\(',
      filePattern: '*.ts',
      caseInsensitive: true,
    });
    assert.deepEqual(
      mapToolCall(
        'codex',
        'shell',
        { command: ['apply_patch', '*** Begin Patch\n*** Delete File: old.txt\n*** End Patch'] },
        '/p',
      ),
      {
        name: 'delete_file',
        kind: 'delete',
        args: { path: 'old.txt' },
      },
    );
  });

  test('what only looks like a match is text: replace_all, a background command, a multiline search, an unknown agent, a path outside', () => {
    assert.equal(
      mapToolCall(
        'claude',
        'Edit',
        { file_path: '/p/a', old_string: 'x', new_string: 'y', replace_all: true },
        '/p',
      ),
      undefined,
    );
    assert.equal(
      mapToolCall('claude', 'Bash', { command: 'npm run dev', run_in_background: true }, '/p'),
      undefined,
    );
    assert.equal(mapToolCall('claude', 'Grep', { pattern: 'a\nb', multiline: true }, '/p'), undefined);
    assert.equal(
      mapToolCall('claude', 'Task', { prompt: 'x', subagent_type: 'statusline-setup' }, '/p'),
      undefined,
    );
    assert.equal(mapToolCall('claude', 'Read', {}, '/p'), undefined, 'a required argument missing');
    assert.equal(mapToolCall('claude', 'NotebookEdit', { notebook_path: '/p/a.ipynb' }, '/p'), undefined);
    assert.equal(mapToolCall('claude', 'constructor', {}, '/p'), undefined, 'not a row');
    assert.deepEqual(mapToolCall('claude', 'Read', { file_path: '/etc/hosts' }, '/p')?.args, {
      path: '/etc/hosts',
    });
  });
});

describe("Codex's apply_patch", () => {
  const same = (path: string) => path;
  test('one file added, deleted or updated is write_file, delete_file, str_replace or multi_edit', () => {
    assert.deepEqual(patchCall('*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch', same), {
      name: 'write_file',
      args: { path: 'a.txt', content: 'one\ntwo\n' },
    });
    assert.deepEqual(
      patchCall(
        '*** Begin Patch\n*** Update File: a.txt\n@@ first\n a\n-b\n+B\n@@ second\n-x\n+X\n y\n*** End of File\n*** End Patch\n',
        same,
      ),
      {
        name: 'multi_edit',
        args: {
          path: 'a.txt',
          edits: [
            { oldStr: 'a\nb', newStr: 'a\nB' },
            { oldStr: 'x\ny', newStr: 'X\ny' },
          ],
        },
      },
    );
  });

  test('two files, a move, a hunk that only adds, or a patch cut short are not one call', () => {
    assert.equal(
      patchCall('*** Begin Patch\n*** Add File: a\n+1\n*** Add File: b\n+2\n*** End Patch', same),
      undefined,
    );
    assert.equal(
      patchCall('*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch', same),
      undefined,
    );
    assert.equal(
      patchCall('*** Begin Patch\n*** Update File: a\n@@\n+only added\n*** End Patch', same),
      undefined,
    );
    assert.equal(patchCall('*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n', same), undefined);
  });
});

describe('a transcript that cannot be read is refused whole, naming the file and the line', () => {
  const claude = fixture(CLAUDE).split('\n');
  const refuse = (format: ImportFormat, text: string, pattern: RegExp) =>
    assert.throws(
      () => convert(READERS[format](text, 'x.jsonl'), 'x.jsonl'),
      (error: unknown) => error instanceof TranscriptError && pattern.test(error.message),
    );

  test('a damaged line in the middle, and a last line cut off (the agent still writing)', () => {
    const damaged = [...claude];
    damaged[5] = (damaged[5] ?? '').slice(0, 40);
    refuse(
      'claude',
      damaged.join('\n'),
      /^x\.jsonl:6: not valid JSON \(40 characters\); the file is damaged, or not a Claude Code transcript\. Nothing was imported\.$/,
    );
    const last = claude.length - 1; // the file ends with a line break
    refuse(
      'claude',
      claude.join('\n').slice(0, -20),
      new RegExp(
        `^x\\.jsonl:${last}: the last line is cut off .*is Claude Code still writing the transcript\\?`,
      ),
    );
  });

  test('a file of another agent, or of none', () => {
    refuse(
      'claude',
      fixture(CODEX),
      /^x\.jsonl: no user or assistant record; this is not a Claude Code transcript/,
    );
    refuse(
      'codex',
      fixture(CLAUDE),
      /^x\.jsonl:1: a Codex rollout starts with a "session_meta" line; this one does not/,
    );
    refuse('pi', fixture(CODEX), /^x\.jsonl:1: a pi session starts with its header/);
    refuse('pi', '[1, 2]\n', /^x\.jsonl:1: not a JSON object; this is not a pi transcript/);
    refuse('codex', '\n\n', /^x\.jsonl: the transcript is empty/);
    refuse(
      'pi',
      '{"type":"session","version":4,"id":"x"}\n',
      /^x\.jsonl:1: a pi session of version 4; this Santra reads versions 1 to 3/,
    );
  });

  test('a record without what its type needs', () => {
    const noUuid = claude.map((line) => line.replace('"uuid":"9ff29d57-8b28-4da9-8e7f-b0e4e7e2ba46",', ''));
    refuse(
      'claude',
      noUuid.join('\n'),
      /^x\.jsonl:4: a "user" record without its "uuid"\. Nothing was imported\.$/,
    );
    refuse(
      'codex',
      fixture(CODEX).replace('"call_id":"call_5tcmcvPueMOTIeYuTUGW0Ss3"}', '"call_idx":"x"}'),
      /^x\.jsonl:14: a function_call without its "call_id" or "name"/,
    );
  });

  test('a record of a type not known here is passed over, with a warning naming its line', () => {
    const text = [...claude.slice(0, 3), '{"type":"telepathy","uuid":"t"}', ...claude.slice(3)].join('\n');
    const transcript = readClaude(text, 'x.jsonl');
    assert.deepEqual(transcript.warnings, [
      'x.jsonl:4: skipped a record of a type this Santra does not know ("telepathy")',
    ]);
    assert.equal(convert(transcript, 'x.jsonl').runs.length, 2);
    const rollout = readCodex(
      `${fixture(CODEX)}{"timestamp":"t","type":"response_item","payload":{"type":"hologram"}}\n`,
      'r.jsonl',
    );
    assert.deepEqual(rollout.warnings, [
      'r.jsonl:41: skipped a response item of a type this Santra does not know ("hologram")',
    ]);
  });

  test('only a sub-agent’s conversation', () => {
    const sidechain = claude.filter((line) => line.includes('"isSidechain":true'));
    refuse(
      'claude',
      sidechain.join('\n'),
      /only a sub-agent's conversation .* import the main transcript, 4f35e220-c435-4cf7-b9b9-f40426042847\.jsonl, instead/,
    );
  });
});
