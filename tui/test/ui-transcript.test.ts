/**
 * The transcript reducer (tui/src/ui/transcript.ts) and the cutting of streamed text into
 * finished Markdown blocks (markdown-blocks.ts): pure functions, phases in, entries out; and the
 * controller's pacing of the frames that apply them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Phase } from '#protocol';
import {
  EMPTY_STREAM,
  endMarkdown,
  feedMarkdown,
  type MarkdownStream,
  plainRows,
} from '../src/ui/markdown-blocks.ts';
import {
  EMPTY_TRANSCRIPT,
  type Entry,
  KEPT_OUTPUTS,
  reflowEntries,
  runEnd,
  stepAll,
  type TranscriptEvent,
} from '../src/ui/transcript.ts';
import { Controller } from '../src/ui/controller.ts';
import { entryMarkdown } from '../src/ui/export-markdown.ts';
import { FLUSH_MS, FRAME_MS, TEXT_FRAME_MS } from '../src/ui/ui-state.ts';

let seq = 0;
const base = (agentId = 'orchestrator', parentAgentId?: string) => ({
  runId: 'run-1',
  sessionId: 'ses-1',
  agentId,
  seq: ++seq,
  ...(parentAgentId === undefined ? {} : { parentAgentId, agentRole: agentId.replace(/-\d+$/, '') }),
});
const text = (value: string, agent?: string, parent?: string): TranscriptEvent => ({
  type: 'phase',
  phase: { ...base(agent, parent), type: 'text', text: value } as Phase,
});
const phase = (value: Record<string, unknown>, agent?: string, parent?: string): TranscriptEvent => ({
  type: 'phase',
  phase: { ...base(agent, parent), ...value } as Phase,
});

/** Feeds the text in pieces of `size` characters; returns the blocks, the plain rows and what is left. */
function feedAll(
  input: string,
  size: number,
  width?: number,
): { blocks: string[]; rows: string[]; rest: MarkdownStream } {
  let stream = EMPTY_STREAM;
  const blocks: string[] = [];
  const rows: string[] = [];
  for (let i = 0; i < input.length; i += size) {
    const fed = feedMarkdown(stream, input.slice(i, i + size), width);
    stream = fed.stream;
    blocks.push(...fed.blocks);
    rows.push(...fed.rows);
  }
  return { blocks, rows, rest: stream };
}

describe('markdown blocks', () => {
  const answer = [
    '# Title',
    '',
    'A paragraph that',
    'spans two lines.',
    '',
    '```ts',
    'const a = 1;',
    '',
    'const b = 2;',
    '```',
    '',
    '1. first',
    '',
    '2. second',
    '   continued',
    '',
    'Last words',
  ].join('\n');

  for (const size of [1, 3, 7, 1000]) {
    test(`blocks end at blank lines, never inside a fence or an ordered list (deltas of ${size})`, () => {
      const { blocks, rest } = feedAll(answer, size);
      assert.deepEqual(blocks, [
        '# Title\n\n',
        'A paragraph that\nspans two lines.\n\n',
        '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n',
        // The list is not cut before its second item (it would be numbered 1 again).
        '1. first\n\n2. second\n   continued\n\n',
      ]);
      // A block is finished as soon as the next one starts; the rest is the unfinished tail.
      assert.equal(rest.text, 'Last words');
      assert.deepEqual(blocks.join('') + rest.text, answer);
      assert.equal(endMarkdown(rest), rest.text);
    });
  }

  test('a long code block is cut into fenced pieces, each closed and reopened with its language', () => {
    const code = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const { blocks, rest } = feedAll(`\`\`\`python\n${code}\n`, 5);
    assert.ok(blocks.length >= 2);
    for (const block of blocks) {
      assert.match(block, /^```python\n/);
      assert.match(block, /\n```\n$/);
    }
    assert.match(rest.text, /^```python\n/);
    // Unclosed at the end of the turn: closed, so it renders as code.
    assert.match(endMarkdown(rest) ?? '', /\n```\n$/);
  });

  test('a long paragraph without blank lines is cut, so the live tail stays small', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word ${i}`).join('\n');
    const { blocks, rest } = feedAll(long, 11);
    assert.ok(blocks.length >= 3);
    assert.ok(rest.text.split('\n').length <= 61);
  });
});

describe('plain rows of a paragraph being written', () => {
  const words = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}${'x'.repeat(i % 7)}`).join(' ');

  for (const size of [1, 5, 13]) {
    test(`a long plain line is handed out row by row, whole words, the last row live (deltas of ${size})`, () => {
      const { blocks, rows, rest } = feedAll(words, size, 40);
      assert.deepEqual(blocks, []);
      assert.ok(rows.length > 10);
      for (const row of rows) {
        assert.ok(row.length <= 40, row);
        assert.match(row, /^\S.*\S$/);
      }
      // Nothing lost, nothing twice: the rows and the rest are the line, cut at spaces.
      assert.equal(`${rows.join(' ')} ${rest.text}`, words);
      // Greedy wrapping: the next word would not have fitted on the row.
      for (const [index, row] of rows.entries()) {
        const next = (rows[index + 1] ?? rest.text).split(' ')[0] as string;
        assert.ok(row.length + 1 + next.length > 40, `${row} | ${next}`);
      }
      assert.ok(rest.text.length <= 40 * 3);
    });
  }

  test('without a width, and for text Markdown would not print as written, nothing is handed out early', () => {
    assert.deepEqual(feedAll(words, 5).rows, []);
    for (const start of [
      '**bold** ',
      '- item ',
      '1. item ',
      '# Title ',
      '> quote ',
      '    code ',
      '| a | b ',
      '[link](x) ',
    ]) {
      assert.deepEqual(feedAll(`${start}${words}`, 5, 40).rows, [], start);
    }
    // Inside a code fence the text stays code.
    assert.deepEqual(feedAll(`\`\`\`\n${words}`, 5, 40).rows, []);
    // Rows stop before the first character with a meaning in Markdown; the rest renders as Markdown.
    const styled = `${words.slice(0, 200)} and *then* ${words}`;
    const { rows, rest } = feedAll(styled, 5, 40);
    assert.ok(rows.length >= 2);
    assert.ok(rows.join(' ').length < 200);
    assert.match(rest.text, /\*then\*/);
    // A row is not handed out when the rest would start as an ordered list item or a link.
    const [z, a, b] = ['z', 'a', 'b'].map((c) => c.repeat(38));
    assert.deepEqual(plainRows(`${z} ${a} ${b} 1999. ${'c'.repeat(50)}`, 40)?.rows, [z, a]);
    assert.deepEqual(
      plainRows(`${words.slice(0, 90)} www.example.com ${words}`, 40)
        ?.rows.join(' ')
        .includes('www'),
      false,
    );
  });

  test('the reducer prints the rows once the width is known, then the rest of the paragraph at its end', () => {
    let { state, entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'width', columns: 40 },
      { type: 'run_start', at: 0 },
      text(words),
    ]);
    assert.ok(entries.length >= 1);
    for (const entry of entries) assert.equal(entry.kind === 'markdown' && entry.rows, true);
    ({ state, entries } = stepAll(state, [{ type: 'run_end', at: 1, status: 'completed' }]));
    const last = entries[0] as Entry & { kind: 'markdown' };
    assert.equal(last.rows, undefined);
    assert.ok(words.endsWith(last.text));
    assert.equal(state.width, 40);
    // While another agent has unfinished text, paragraphs stay whole.
    ({ entries } = stepAll(state, [
      { type: 'run_start', at: 2 },
      text('Another agent writes', 'reader-1', 'orchestrator'),
      text(words),
    ]));
    assert.deepEqual(entries, []);
  });
});

describe('the transcript reducer', () => {
  test('text streams live and is printed in blocks; the run end prints the rest and a footer', () => {
    let { state, entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'user', text: 'hello' },
      { type: 'run_start', at: 1000 },
      text('Hello '),
      text('there.\n\nSecond'),
    ]);
    assert.deepEqual(
      entries.map((e) => [e.kind, 'text' in e ? e.text : '']),
      [
        ['user', 'hello'],
        ['markdown', 'Hello there.\n\n'],
      ],
    );
    assert.equal(state.agents.get('orchestrator')?.markdown.text, 'Second');
    assert.equal(state.running, true);
    ({ state, entries } = stepAll(state, [
      text(' paragraph.'),
      phase({ type: 'complete', status: 'completed', output: '' }),
      { type: 'run_end', at: 3500, status: 'completed', costUsd: 0.01 },
    ]));
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['markdown', 'run_end'],
    );
    assert.equal((entries[0] as Entry & { kind: 'markdown' }).text, 'Second paragraph.');
    assert.equal((entries[1] as Entry & { kind: 'run_end' }).seconds, 2.5);
    assert.equal(state.running, false);
    assert.equal(state.agents.size, 0);
  });

  test('a resized terminal prints a paragraph cut into rows as one paragraph again, its text intact', () => {
    const long = `${'word '.repeat(60)}https://example.com/${'a'.repeat(70)} end of it. `;
    const first = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'width', columns: 40 },
      { type: 'run_start', at: 0 },
      text(long),
      text('More words follow here.'),
    ]);
    const end = stepAll(first.state, [{ type: 'run_end', at: 1, status: 'completed' }]);
    const entries = [...first.entries, ...end.entries];
    assert.ok(
      entries.some((e) => e.kind === 'markdown' && e.rows === true),
      'rows were printed',
    );
    const paragraphs = reflowEntries(entries).filter((e) => e.kind === 'markdown');
    assert.equal(paragraphs.length, 1);
    assert.equal((paragraphs[0] as Entry & { kind: 'markdown' }).text, `${long}More words follow here.`);
    assert.equal((paragraphs[0] as Entry & { kind: 'markdown' }).rows, undefined);
  });

  test('retries are one line that updates, under the spinner, gone once the model answers', () => {
    const retry = (n: number) =>
      phase({
        type: 'status',
        level: 'warning',
        key: 'model-call',
        text: `Retrying in ${n} s (attempt ${n} of 4) — 127.0.0.1:11434 refused the connection`,
      });
    let { state, entries } = stepAll(EMPTY_TRANSCRIPT, [{ type: 'run_start', at: 0 }, retry(2), retry(3)]);
    assert.deepEqual(entries, [], 'nothing goes into the scrollback');
    assert.match(String(state.notice), /attempt 3 of 4/);
    ({ state } = stepAll(state, [text('Hello')]));
    assert.equal(state.notice, undefined);
    // A warning without a key is one of a kind: it stays in the scrollback.
    ({ entries } = stepAll(state, [phase({ type: 'status', level: 'warning', text: 'a.bin was skipped' })]));
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['status'],
    );
  });

  test('an answer given with task_completed is shown whole, as markdown, in the scrollback and the export', () => {
    const answer = 'Done. I added a docstring to `greet()`:\n\n- it says what it returns\n- and why';
    const { entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'run_start', at: 0 },
      text('I will finish now.'),
      phase({ type: 'tool_call', toolCallId: 't9', toolName: 'task_completed', args: { result: answer } }),
      phase({
        type: 'tool_result',
        toolCallId: 't9',
        toolName: 'task_completed',
        status: 'ok',
        summary: 'completed',
        output: 'Task marked as completed.',
      }),
      phase({ type: 'complete', status: 'completed', output: answer, stopReason: 'end_turn' }),
      { type: 'run_end', at: 5, status: 'completed' },
    ]);
    const shown = entries.filter((e) => e.kind === 'markdown').map((e) => e.text);
    assert.deepEqual(shown, ['I will finish now.', answer]);
    const exported = entries.map((entry) => entryMarkdown(entry) ?? '').join('');
    assert.ok(exported.includes(answer), exported);
  });

  test('an answer streamed as text is not shown twice, nor one cut for the wire', () => {
    for (const [streamed, output] of [
      ['Paris is the capital.\n', 'Paris is the capital.'],
      [
        'A'.repeat(50) + ' and the rest',
        `${'A'.repeat(50)}\n\n[… 13 more characters not sent (63 in all); the text phases carried it whole and the session keeps it.]`,
      ],
    ]) {
      const { entries } = stepAll(EMPTY_TRANSCRIPT, [
        { type: 'run_start', at: 0 },
        text(streamed as string),
        phase({ type: 'complete', status: 'completed', output }),
        { type: 'run_end', at: 5, status: 'completed' },
      ]);
      const shown = entries.filter((e) => e.kind === 'markdown').map((e) => e.text);
      assert.equal(shown.join('').trim(), (streamed as string).trim());
    }
  });

  test('an answer that is not whole says why in its closing line, and in the export', () => {
    for (const [stopReason, words] of [
      ['max_tokens', 'cut off at the output limit'],
      ['refusal', 'declined'],
      ['end_turn', 'done'],
    ] as const) {
      const { entries } = stepAll(EMPTY_TRANSCRIPT, [
        { type: 'run_start', at: 0 },
        text('{"'),
        { type: 'run_end', at: 10, status: 'completed', stopReason },
      ]);
      const end = entries.find((e) => e.kind === 'run_end') as Entry & { kind: 'run_end' };
      assert.equal(runEnd(end.status, end.stopReason), words);
      assert.match(String(entryMarkdown(end)), new RegExp(`^_${words}`));
    }
    assert.equal(runEnd('cancelled', undefined), 'cancelled');
  });

  test('tool calls are live until their result, then one row; text before a call is printed first', () => {
    let { state, entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'run_start', at: 0 },
      text('Let me look'),
      phase({
        type: 'tool_call',
        toolCallId: 'c1',
        toolName: 'read_file',
        args: {},
        summary: 'read_file a.ts',
      }),
    ]);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['markdown'],
    );
    assert.equal(state.tools.get('c1')?.summary, 'read_file a.ts');
    ({ state, entries } = stepAll(state, [
      phase({
        type: 'tool_result',
        toolCallId: 'c1',
        toolName: 'read_file',
        status: 'ok',
        summary: '3 lines',
        output: 'a\nb\nc',
      }),
    ]));
    assert.deepEqual(entries, [
      {
        kind: 'tool',
        id: 2,
        depth: 0,
        agentId: 'orchestrator',
        toolName: 'read_file',
        summary: 'read_file a.ts',
        status: 'ok',
        result: '3 lines',
        hasOutput: true,
      },
    ]);
    assert.equal(state.tools.size, 0);
    assert.deepEqual(state.outputs, [{ title: 'read_file a.ts', text: 'a\nb\nc' }]);
  });

  test('the agent tree: sub-agents are indented under their parent, two levels deep', () => {
    const { entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'run_start', at: 0 },
      phase({
        type: 'tool_call',
        toolCallId: 'o1',
        toolName: 'spawn_agent',
        args: {},
        summary: 'spawn reader',
      }),
      phase({ type: 'section', title: 'Reader: read the config' }, 'reader-1', 'orchestrator'),
      phase(
        { type: 'tool_call', toolCallId: 'r1', toolName: 'read_file', args: {} },
        'reader-1',
        'orchestrator',
      ),
      phase({ type: 'section', title: 'Picker: find it' }, 'picker-2', 'reader-1'),
      phase(
        { type: 'tool_result', toolCallId: 'p1', toolName: 'list_dir', status: 'ok', summary: '4 entries' },
        'picker-2',
        'reader-1',
      ),
      phase({ type: 'complete', status: 'completed', output: 'found' }, 'picker-2', 'reader-1'),
      phase(
        { type: 'tool_result', toolCallId: 'r1', toolName: 'read_file', status: 'ok', summary: '1 line' },
        'reader-1',
        'orchestrator',
      ),
      phase({ type: 'complete', status: 'completed', output: 'done' }, 'reader-1', 'orchestrator'),
    ]);
    assert.deepEqual(
      entries.map((e) => [e.kind, 'depth' in e ? e.depth : -1]),
      [
        ['section', 1],
        ['section', 2],
        ['tool', 2],
        ['agent_done', 2],
        ['tool', 1],
        ['agent_done', 1],
      ],
    );
  });

  test('a cancelled run prints its running tools as cancelled; warnings and errors are printed, info is live', () => {
    const { state, entries } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'run_start', at: 0 },
      phase({ type: 'status', text: 'Reading' }),
      phase({ type: 'status', text: 'Retrying in 2 s', level: 'warning' }),
      phase({ type: 'tool_call', toolCallId: 'c1', toolName: 'run_command', args: {}, summary: 'npm test' }),
      phase({ type: 'error', message: 'rate limited', retryable: true }),
    ]);
    assert.equal(state.status, 'Reading');
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['status', 'error'],
    );
    const ended = stepAll(state, [{ type: 'run_end', at: 10, status: 'cancelled' }]);
    assert.deepEqual(
      ended.entries.map((e) => [e.kind, 'status' in e ? e.status : '']),
      [
        ['tool', 'cancelled'],
        ['run_end', 'cancelled'],
      ],
    );
  });

  test('Ctrl+O keeps the last KEPT_OUTPUTS outputs, with the diff of an allowed change; a warning every run repeats is printed once', () => {
    const events: TranscriptEvent[] = [{ type: 'run_start', at: 0 }];
    for (let call = 1; call <= KEPT_OUTPUTS + 5; call++) {
      events.push(
        phase({
          type: 'tool_call',
          toolCallId: `c${call}`,
          toolName: 'read_file',
          args: {},
          summary: `read ${call}`,
        }),
      );
      if (call === KEPT_OUTPUTS + 5)
        events.push({ type: 'approval', toolCallId: `c${call}`, diff: ['-a', '+b'] });
      events.push(
        phase({
          type: 'tool_result',
          toolCallId: `c${call}`,
          toolName: 'read_file',
          status: 'ok',
          summary: 'ok',
          output: `output ${call}`,
        }),
      );
    }
    const warning = phase({ type: 'status', level: 'warning', text: 'Skipped .agents/bad.json: not JSON' });
    events.push(
      warning,
      { type: 'run_end', at: 1, status: 'completed' },
      { type: 'run_start', at: 2 },
      warning,
    );
    const { state, entries } = stepAll(EMPTY_TRANSCRIPT, events);
    assert.equal(state.outputs.length, KEPT_OUTPUTS);
    assert.equal(state.outputCount, KEPT_OUTPUTS + 5);
    assert.equal(state.outputs[0]?.text, 'output 6');
    assert.deepEqual(state.outputs.at(-1), {
      title: `read ${KEPT_OUTPUTS + 5}`,
      text: `output ${KEPT_OUTPUTS + 5}`,
      diff: ['-a', '+b'],
    });
    assert.equal(entries.filter((entry) => entry.kind === 'status').length, 1);
    const again = stepAll(state, [{ type: 'new_session' }, warning]);
    assert.equal(again.entries.filter((entry) => entry.kind === 'status').length, 1);
  });

  test('the state holds only what is live, however long the transcript', () => {
    let state = EMPTY_TRANSCRIPT;
    let printed = 0;
    for (let turn = 0; turn < 2000; turn++) {
      const result = stepAll(state, [
        { type: 'user', text: `question ${turn}` },
        { type: 'run_start', at: turn },
        text(`answer ${turn}\n\nmore`),
        { type: 'run_end', at: turn + 1, status: 'completed' },
      ]);
      state = result.state;
      printed += result.entries.length;
    }
    assert.equal(printed, 2000 * 4);
    assert.equal(state.agents.size, 0);
    assert.equal(state.tools.size, 0);
    assert.equal(state.nextId, 2000 * 4 + 1);
  });
});

describe("the controller's frames", () => {
  test('streamed text waits for a frame of its own pace; anything else brings the frame forward', (context) => {
    context.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    let clock = 0;
    const controller = new Controller({
      connect: () => Promise.reject(new Error('no server in this test')),
      workspaceRoot: '/p',
      cwd: undefined,
      startDir: '/p',
      now: () => clock,
    });
    let frames = 0;
    controller.subscribe(() => frames++);
    const advance = (ms: number) => {
      clock += ms;
      context.mock.timers.tick(ms);
    };
    const phase = (fields: Partial<Phase>) =>
      controller.dispatch({ type: 'phase', phase: { ...base(), seq: ++seq, ...fields } as Phase });

    phase({ type: 'text', text: 'Hello' });
    advance(FLUSH_MS);
    assert.equal(frames, 1, 'the first delta after a quiet time is drawn a flush window later');
    phase({ type: 'text', text: ' there' });
    advance(FRAME_MS);
    assert.equal(frames, 1, 'more text waits for TEXT_FRAME_MS');
    advance(TEXT_FRAME_MS - FRAME_MS);
    assert.equal(frames, 2);
    phase({ type: 'text', text: '.' });
    advance(FLUSH_MS);
    phase({ type: 'status', text: 'Reading files' });
    advance(FRAME_MS - FLUSH_MS);
    assert.equal(frames, 3, 'a status line comes at FRAME_MS, with the text held before it');
    controller.flush();
    assert.equal(frames, 3, 'nothing was left over');
  });
});
