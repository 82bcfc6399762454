import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Phase, PromptResult } from '#protocol';
import type { OutputFormat } from '../src/print/args.ts';
import {
  createOutput,
  errorLine,
  formatUsd,
  oneLine,
  parsePhase,
  usageLine,
  verboseLine,
} from '../src/print/output.ts';

const root = { runId: 'run-1', sessionId: 'ses-1', agentId: 'root' };
const sub = { ...root, agentId: 'reader-1', parentAgentId: 'root', agentRole: 'reader' };
let seq = 0;
const text = (value: string, agent: object = root) => ({ ...agent, seq: ++seq, type: 'text', text: value });
const result: PromptResult = {
  runId: 'run-1',
  sessionId: 'ses-1',
  status: 'completed',
  output: 'Hello',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  costUsd: 0,
  sessionUsage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  sessionCostUsd: 0,
};

function play(format: OutputFormat, phases: unknown[], end: PromptResult | null = result): string {
  let out = '';
  const output = createOutput(format, (chunk) => (out += chunk));
  for (const raw of phases) output.phase(raw, parsePhase(raw));
  if (end !== null) output.result(end);
  output.finish();
  output.finish();
  return out;
}

describe('output formats', () => {
  test("text: breakLine ends the answer's line once (a stderr line follows on its own line), then the answer goes on", () => {
    let out = '';
    const output = createOutput('text', (chunk) => (out += chunk));
    output.phase(text('Let me look.'), parsePhase(text('Let me look.')));
    output.breakLine();
    output.breakLine();
    output.phase(text('Done.'), parsePhase(text('Done.')));
    output.finish();
    assert.equal(out, 'Let me look.\nDone.\n');
    let json = '';
    const quiet = createOutput('json', (chunk) => (json += chunk));
    quiet.breakLine();
    assert.equal(json, '');
  });

  test("text: the root agent's text only, then one final newline", () => {
    const phases = [text('Hel'), text('SUB', sub), { ...root, seq: 9, type: 'new_kind' }, text('lo')];
    assert.equal(play('text', phases), 'Hello\n');
    assert.equal(play('text', [text('Hello\n')]), 'Hello\n');
  });

  test('text: a server that streamed no text still gets its answer printed', () => {
    assert.equal(play('text', []), 'Hello\n');
    assert.equal(play('text', [], null), '');
  });

  test('text: an answer that did not stream (task_completed after a plan) follows the streamed text', () => {
    const done = { ...result, output: 'Done: hello.txt greets the world.' };
    assert.equal(
      play('text', [text("I'll ask the executor."), text('SUB', sub)], done),
      "I'll ask the executor.\nDone: hello.txt greets the world.\n",
    );
    assert.equal(play('text', [text('Planning.\n')], done), 'Planning.\nDone: hello.txt greets the world.\n');
    // An answer that did stream is not printed twice, whatever whitespace ends it.
    assert.equal(play('text', [text('Hel'), text('lo\n\n')], { ...result, output: 'Hello' }), 'Hello\n\n');
  });

  test('json: one object at the end, nothing before', () => {
    const out = play('json', [text('Hel')]);
    assert.deepEqual(JSON.parse(out), result);
    assert.equal(out.split('\n').length, 2);
  });

  test('stream-json: every phase as received, unknown ones too, then the result', () => {
    const phases = [text('a'), { ...root, seq: 50, type: 'new_kind', extra: 1 }];
    const lines = play('stream-json', phases)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(lines, [...phases, { type: 'result', ...result }]);
  });
});

describe('stderr lines', () => {
  test('verbose summaries name the sub-agent and keep to one line', () => {
    const call = parsePhase({
      ...sub,
      seq: 1,
      type: 'tool_call',
      toolCallId: 'c',
      toolName: 'grep',
      args: { q: 'x' },
    });
    assert.equal(verboseLine(call as Phase), '→ [reader] grep {"q":"x"}');
    const status = parsePhase({ ...root, seq: 2, type: 'status', text: 'Reading\nthe code' });
    assert.equal(verboseLine(status as Phase), '· Reading the code');
    assert.equal(verboseLine(parsePhase(text('x')) as Phase), undefined);
  });

  test('an error phase becomes one line with what went wrong and where', () => {
    const error = parsePhase({
      ...root,
      seq: 3,
      type: 'error',
      message: 'Rate limited;\nretry in 20 s.',
      provider: 'anthropic',
      httpStatus: 429,
      code: 'rate_limit',
      retryable: true,
    });
    assert.equal(
      errorLine(error as Extract<Phase, { type: 'error' }>),
      'santra: error: Rate limited; retry in 20 s. (anthropic 429 rate_limit)',
    );
  });

  test('oneLine makes control characters visible and cuts long text', () => {
    assert.equal(oneLine('a\u001b[31mb'), 'a^[[31mb');
    assert.equal(oneLine('x'.repeat(500)).length, 200);
  });
});

describe('usage and cost', () => {
  test('formatUsd keeps sub-cent precision', () => {
    assert.equal(formatUsd(0), '$0');
    assert.equal(formatUsd(0.000123456), '$0.0001235');
    assert.equal(formatUsd(0.0042), '$0.0042');
    assert.equal(formatUsd(1.5), '$1.50');
  });

  test('--verbose says what each model call cost, the run so far with its cache hits, and the budget', () => {
    const usage = { inputTokens: 200, outputTokens: 30, cacheReadTokens: 5_000, cacheWriteTokens: 0 };
    const line = verboseLine({
      runId: 'r',
      sessionId: 's',
      agentId: 'reader-1',
      parentAgentId: 'orchestrator',
      agentRole: 'reader',
      seq: 3,
      type: 'usage',
      usage,
      costUsd: 0.0031,
      runUsage: usage,
      runCostUsd: 0.0123,
      sessionCostUsd: 0.5,
      cacheHitRatio: 5_000 / 5_200,
      budget: { scope: 'run', limitUsd: 1, spentUsd: 0.0123 },
    });
    assert.equal(line, '$ [reader] $0.0031 this call · run $0.01 (96% cached) · run budget $0.01 of $1.00');
  });

  test('usageLine shows the run and the session', () => {
    const line = usageLine({
      ...result,
      usage: { inputTokens: 1000, outputTokens: 56, cacheReadTokens: 800, cacheWriteTokens: 0 },
      costUsd: 0.00123,
      sessionUsage: { inputTokens: 3000, outputTokens: 300, cacheReadTokens: 800, cacheWriteTokens: 0 },
      sessionCostUsd: 0.0456,
    });
    assert.equal(
      line,
      'santra: 1,800 in (44% cached), 56 out tokens, $0.00123 · session 3,800 in (21% cached), 300 out, $0.05',
    );
  });
});
