/**
 * What a run costs, shown as it happens, and the budgets that stop it: usage phases priced at the
 * cache rates, the hit ratio on the result and the `complete` phase, `santra -p --max-budget-usd`
 * stopping a swarm (sub-agents included) with exit code 4, a client asked to raise a spent budget,
 * and a session's budget across its runs. The built server and `santra`, a fake Anthropic provider.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY, ownTask, runSantra, santraEnv, suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();

// claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
const price = (usage: {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}) =>
  ((usage.inputTokens ?? 0) * 3 +
    (usage.outputTokens ?? 0) * 15 +
    (usage.cacheReadTokens ?? 0) * 0.3 +
    (usage.cacheWriteTokens ?? 0) * 3.75) /
  1e6;
const close = (a: unknown, b: number) => typeof a === 'number' && Math.abs(a - b) < 1e-9;

/** Each call costs about $0.021 and may cost up to about $0.07 (4,096 tokens of output at most). */
const CALL_USAGE = { inputTokens: 2_000, outputTokens: 1_000 };
const BUDGET_CONFIG = { agent: { maxOutputTokens: 4_096 } };

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const as = (role: string) => (request: RecordedRequest) =>
  systemText(request).includes(`You are the ${role}`);
const turn = (role: string, rest: Omit<FakeTurn, 'match'>): FakeTurn => ({
  match: as(role),
  usage: CALL_USAGE,
  ...rest,
});
const call = (name: string, args: unknown) => ({ toolCalls: [{ name, args }] });
/** A reader's turn, served only to the reader given `task` (the two run at once). */
const readerTurn = (task: string, rest: Omit<FakeTurn, 'match'>): FakeTurn => ({
  ...turn('reader', rest),
  match: (request) => as('reader')(request) && ownTask(task)(request),
});

/** The orchestrator sends two readers; each would read a file, then finish; the orchestrator answers. */
const SWARM: FakeTurn[] = [
  turn(
    'orchestrator',
    call('spawn_agents', {
      agents: [
        { agentId: 'reader', task: 'Read a.txt' },
        { agentId: 'reader', task: 'Read b.txt' },
      ],
    }),
  ),
  readerTurn('Read a.txt', call('read_file', { path: 'a.txt' })),
  readerTurn('Read b.txt', call('read_file', { path: 'b.txt' })),
  readerTurn('Read a.txt', call('task_completed', { result: 'alpha' })),
  readerTurn('Read b.txt', call('task_completed', { result: 'beta' })),
  turn('orchestrator', { text: 'alpha and beta.' }),
];

describe('what a run costs, as it happens', () => {
  test('usage phases price each call at the cache rates; the hit ratio is on the complete phase and the result', async () => {
    const first = { inputTokens: 1_000, cacheWriteTokens: 4_000, outputTokens: 50 };
    const second = { inputTokens: 200, cacheReadTokens: 5_000, outputTokens: 30 };
    const h = await start('anthropic', [
      { toolCalls: [{ name: 'list_dir', args: { path: '.' } }], usage: first },
      { text: 'Two files.', usage: second },
    ]);
    const { response, phases } = await h.prompt({ text: 'What is here?' });
    const result = response.result as Json;
    const usages = phases.filter((p) => p.type === 'usage');
    assert.equal(usages.length, 2, 'one per model call');
    assert.ok(
      close(usages[0]?.costUsd, price(first)),
      `${String(usages[0]?.costUsd)}: cache writes at their price`,
    );
    assert.ok(close(usages[1]?.costUsd, price(second)), 'cache reads at theirs');
    assert.ok(close(usages[1]?.runCostUsd, price(first) + price(second)));
    assert.ok(close(usages[1]?.sessionCostUsd, price(first) + price(second)));
    const ratio = 5_000 / (1_000 + 4_000 + 200 + 5_000);
    assert.ok(close(usages[1]?.cacheHitRatio, ratio));
    assert.equal(usages[0]?.budget, undefined, 'no budget, none shown');
    const complete = phases.find((p) => p.type === 'complete');
    assert.deepEqual(complete?.usage, {
      inputTokens: 1_200,
      outputTokens: 80,
      cacheReadTokens: 5_000,
      cacheWriteTokens: 4_000,
    });
    assert.ok(close(complete?.costUsd, price(first) + price(second)));
    assert.ok(close(complete?.cacheHitRatio, ratio));
    assert.ok(close(result.cacheHitRatio, ratio));
    assert.ok(close(result.sessionCacheHitRatio, ratio));
    assert.ok(close(result.costUsd, price(first) + price(second)));
  });
});

describe('budgets', () => {
  test('santra -p --max-budget-usd stops the swarm, sub-agents included, with exit code 4 and nothing left running', async () => {
    const fake = await startFakeProvider('anthropic', SWARM);
    const home = tempDir('santra-home-');
    const workspace = tempDir('santra-ws-');
    try {
      mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
      writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify(BUDGET_CONFIG), { mode: 0o600 });
      writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
      writeFileSync(join(workspace, 'b.txt'), 'beta\n');
      const run = await runSantra(
        [
          '-p',
          '--agent',
          'orchestrator',
          '--max-budget-usd',
          '0.05',
          '--output-format',
          'stream-json',
          'Read a.txt and b.txt',
        ],
        { cwd: workspace, env: santraEnv(home, fake.url) },
      );
      assert.equal(run.code, 4, run.stderr);
      assert.ok(!`${run.stdout}${run.stderr}`.includes(CANARY_KEY), 'the key never shows');
      assert.match(
        run.stderr,
        /The run's budget cannot pay for more: \$0\.0\d+ spent of \$0\.0500, .* so the run stopped\./,
      );
      assert.match(run.stderr, /exit code 4.*--max-budget-usd/);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Json);
      const result = lines.at(-1) as Json;
      assert.equal(result.type, 'result');
      assert.equal(result.status, 'error');
      assert.ok((result.costUsd as number) <= 0.05, `${String(result.costUsd)} spent of $0.05`);
      assert.deepEqual(
        { ...(result.budget as Json), spentUsd: undefined },
        { scope: 'run', limitUsd: 0.05, spentUsd: undefined },
      );
      // A reader was refused its call and told its parent so; then the orchestrator was refused its own.
      const stopped = lines
        .filter((p) => p.type === 'error' && p.code === 'budget')
        .map((p) => p.agentRole ?? p.agentId);
      assert.ok(stopped.includes('reader'), `stopped: ${stopped.join(', ')}`);
      assert.equal(stopped.at(-1), 'orchestrator');
      const spawned = lines.find((p) => p.type === 'tool_result' && p.toolName === 'spawn_agents');
      assert.match(String(spawned?.output), /budget cannot pay for more/);
      // Every call made was reserved within the budget: a lowered one asked for less output.
      const sent = fake.requests.length;
      assert.ok(sent >= 1 && sent < SWARM.length, `${sent} model calls`);
      assert.ok(fake.requests.every((r) => (r.body.max_tokens as number) <= 4_096));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(fake.requests.length, sent, 'nothing went on after the run stopped');
    } finally {
      await fake.close();
      await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
    }
  });

  test('a client that answers questions is asked to raise a spent budget; raised, the run goes on', async () => {
    const h = await start(
      'anthropic',
      SWARM,
      {},
      { ...BUDGET_CONFIG, budget: { perRunUsd: 0.05 } },
      { capabilities: { ask: true }, generalist: false },
    );
    writeFileSync(join(h.workspace, 'a.txt'), 'alpha\n');
    writeFileSync(join(h.workspace, 'b.txt'), 'beta\n');
    const asked: Json[] = [];
    h.client.handle('ask', (params) => {
      asked.push(params);
      return { answer: '1.00' };
    });
    const { response, phases } = await h.prompt({ text: 'Read a.txt and b.txt', agent: 'orchestrator' });
    const result = response.result as Json;
    assert.equal(result.status, 'completed', JSON.stringify(phases.filter((p) => p.type === 'error')));
    assert.equal(asked.length, 1, 'asked once');
    const question = asked[0] as Json;
    assert.equal(question.header, 'Budget');
    assert.equal(question.toolCallId, 'budget_1');
    assert.match(
      String(question.prompt),
      /^This run has spent \$0\.0\d+ of its \$0\.0500 budget, and the next model call \(reader-\d\) could cost up to \$0\.\d+\. Raise the budget/,
    );
    const [raise, stop] = question.options as Json[];
    assert.deepEqual(stop, { label: 'Stop the run', value: 'stop' });
    assert.match(String(raise?.value), /^\d+\.\d\d$/);
    assert.equal(raise?.label, `Raise to $${String(raise?.value)}`);
    assert.equal((question.budget as Json).scope, 'run');
    assert.equal((question.budget as Json).limitUsd, 0.05);
    assert.ok(
      ((question.budget as Json).neededUsd as number) > 0.05 - ((question.budget as Json).spentUsd as number),
    );
    assert.equal((result.budget as Json).limitUsd, 1);
    // Each reader's requests name its own task only, so each got its own scripted turns.
    for (const request of h.fake.requests.filter(as('reader')))
      assert.equal(
        [ownTask('Read a.txt')(request), ownTask('Read b.txt')(request)].filter(Boolean).length,
        1,
      );
    // Each agent's complete phase carries what it and those it started spent: a reader its two
    // calls, the orchestrator the whole run's six.
    const completes = phases.filter((p) => p.type === 'complete');
    for (const reader of completes.filter((p) => p.agentRole === 'reader'))
      assert.equal((reader.usage as Json).outputTokens, 2_000, String(reader.agentId));
    const root = completes.find((p) => p.parentAgentId === undefined);
    assert.equal((root?.usage as Json).outputTokens, 6_000);
    assert.ok(close(root?.costUsd, result.costUsd as number));
    assert.ok(phases.some((p) => p.type === 'status' && /budget was raised to \$1\.00/.test(String(p.text))));
    assert.ok(
      phases.filter((p) => p.type === 'usage').every((p) => (p.budget as Json | undefined)?.scope === 'run'),
    );
    // The question and its answer are kept in the session, as a tool's questions are.
    const id = h.nextId();
    h.client.request(id, 'session/export', { sessionId: result.sessionId, format: 'json' });
    const records = ((await h.client.response(id)).result as Json).records as Json[];
    const kept = records.filter((r) => r.type === 'ask');
    assert.equal(kept.length, 1, JSON.stringify(kept));
    assert.equal(kept[0]?.prompt, question.prompt);
    assert.equal(kept[0]?.answer, '1.00');
    assert.equal(kept[0]?.agentId, question.agentId);
  });

  test('answered "stop", the run ends with a budget error', async () => {
    const h = await start(
      'anthropic',
      SWARM,
      {},
      { ...BUDGET_CONFIG, budget: { perRunUsd: 0.05 } },
      {
        capabilities: { ask: true },
        generalist: false,
      },
    );
    h.client.handle('ask', () => ({ answer: 'stop' }));
    const { response, phases } = await h.prompt({ text: 'Read a.txt and b.txt', agent: 'orchestrator' });
    assert.equal((response.result as Json).status, 'error');
    const error = phases.filter((p) => p.type === 'error').at(-1);
    assert.equal(error?.code, 'budget');
    assert.match(
      String(error?.message),
      /raise budget\.perRunUsd in .*config\.json and continue the session/,
    );
  });

  test("a session's budget counts its earlier runs: once spent, the next prompt stops before its first call", async () => {
    const h = await start(
      'anthropic',
      [
        { text: 'One.', usage: CALL_USAGE },
        { text: 'Two.', usage: CALL_USAGE },
      ],
      {},
      { ...BUDGET_CONFIG, budget: { perSessionUsd: 0.04 } },
    );
    const first = await h.prompt({ text: 'first' });
    const sessionId = (first.response.result as Json).sessionId;
    assert.equal((first.response.result as Json).status, 'completed');
    const second = await h.prompt({ text: 'second', sessionId });
    assert.equal((second.response.result as Json).status, 'error');
    assert.equal(h.fake.requests.length, 1, 'no call was made for the second prompt');
    const error = second.phases.find((p) => p.type === 'error');
    assert.equal(error?.code, 'budget');
    assert.match(
      String(error?.message),
      /^The session's budget cannot pay for more: \$0\.0210 spent of \$0\.0400 .*Raise budget\.perSessionUsd in /,
    );
    assert.deepEqual((second.response.result as Json).budget, {
      scope: 'session',
      limitUsd: 0.04,
      spentUsd: price(CALL_USAGE),
    });
  });

  test('a budget in the config that is not an amount of dollars is refused, naming the field and the fix', async () => {
    const h = await start('anthropic', [], {}, { budget: { perRunUsd: -1 } });
    const { response, phases } = await h.prompt({ text: 'hi' });
    const message = JSON.stringify(response.error ?? phases);
    assert.match(
      message,
      /budget\.perRunUsd.*expected an amount of US dollars greater than 0, such as 5 or 0\.50; remove it for no limit/,
    );
  });
});
