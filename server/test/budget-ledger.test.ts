/**
 * The spend ledger on its own: each call reserves its worst case, waits for calls in flight rather
 * than overspend, is made with less output when that fits, and otherwise asks (or stops); a
 * sub-agent spends from its parent's budget; the figures a `usage` phase carries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Usage } from '#protocol';
import { type BudgetQuestion, MIN_OUTPUT_TOKENS, SpendLedger } from '../src/agent/budget-ledger.ts';
import { parseLimit } from '../src/agent/run-budget.ts';
import { resolveModel } from '../src/providers/catalog.ts';
import { userText } from '../src/providers/messages.ts';
import { outputTokenCeiling } from '../src/providers/request-size.ts';
import type { ModelRequest } from '../src/providers/stream.ts';
import type { ModelSpec } from '../src/providers/types.ts';

// $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens; no thinking by default.
const SONNET = resolveModel('anthropic/claude-sonnet-4-5') as ModelSpec;
const never = new AbortController().signal;

function request(maxOutputTokens = 2_000): ModelRequest {
  return {
    model: SONNET,
    system: 'sys',
    messages: [userText('hi')],
    tools: [],
    maxOutputTokens,
    signal: never,
  };
}

/** A call's worst case: its input (tiny here) at the cache-write price, its whole output. */
const worst = (maxOutputTokens = 2_000) => (maxOutputTokens * 15) / 1e6;
const output = (tokens: number): Usage => ({
  inputTokens: 0,
  outputTokens: tokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

function ledger(
  limitUsd: number | undefined,
  options: Partial<ConstructorParameters<typeof SpendLedger>[0]> = {},
) {
  return new SpendLedger({
    model: SONNET,
    limits: limitUsd === undefined ? [] : [{ scope: 'run', limitUsd }],
    sessionSpentUsd: 0,
    refusalMessage: (question) =>
      `spent ${question.status.spentUsd.toFixed(4)} of ${question.status.limitUsd}`,
    ...options,
  });
}

describe('the spend ledger', () => {
  test('without a budget every call goes at once, and the spend is counted', async () => {
    const books = ledger(undefined);
    const call = await books.account('root').reserve(request(), never);
    assert.ok(call.ok);
    const report = call.settle({
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 9000,
      cacheWriteTokens: 0,
    });
    // 1000 × $3 + 100 × $15 + 9000 × $0.30, per million.
    assert.ok(Math.abs(report.costUsd - 0.0072) < 1e-12);
    assert.equal(report.runCostUsd, report.costUsd);
    assert.equal(report.cacheHitRatio, 0.9);
    assert.equal(report.budget, undefined);
  });

  test('a call the rest of the budget cannot pay whole is made with less output, then refused', async () => {
    const books = ledger(worst() * 1.6);
    const first = await books.account('root').reserve(request(), never);
    assert.ok(first.ok);
    assert.equal(first.request.maxOutputTokens, 2_000);
    first.settle(output(2_000));
    // 1,200 tokens' worth is left: the next call is made, with its output cut to what that pays.
    const second = await books.account('root').reserve(request(), never);
    assert.ok(second.ok);
    const cap = second.request.maxOutputTokens;
    assert.ok(cap <= 1_200 && cap >= 1_190, String(cap));
    second.settle(output(second.request.maxOutputTokens));
    // Less than MIN_OUTPUT_TOKENS of answer is left: refused, and so is every call after.
    const third = await books.account('root').reserve(request(), never);
    assert.deepEqual(third, {
      ok: false,
      cancelled: false,
      message: `spent ${books.runCostUsd.toFixed(4)} of ${worst() * 1.6}`,
    });
    assert.equal((await books.account('other').reserve(request(MIN_OUTPUT_TOKENS), never)).ok, false);
    assert.ok(books.runCostUsd <= worst() * 1.6 + 1e-12, 'never more than the budget');
  });

  test('the output of a thinking model is reserved with its thinking room', () => {
    const adaptive = resolveModel('anthropic/claude-sonnet-5-5') as ModelSpec;
    assert.equal(outputTokenCeiling({ model: adaptive, maxOutputTokens: 2_000 }), 2_000 + 16_384);
    assert.equal(outputTokenCeiling({ model: SONNET, maxOutputTokens: 2_000, thinkingBudget: 4_000 }), 6_000);
    assert.equal(outputTokenCeiling({ model: SONNET, maxOutputTokens: 2_000 }), 2_000);
  });

  test('a call waits while calls in flight hold what it needs, rather than shrink or stop', async () => {
    const books = ledger(worst() * 1.2);
    const first = await books.account('a').reserve(request(), never);
    assert.ok(first.ok);
    let secondDone = false;
    const second = books
      .account('b')
      .reserve(request(), never)
      .then((result) => {
        secondDone = true;
        return result;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(secondDone, false, 'the second call waits for the first');
    first.settle(output(100));
    const settled = await second;
    assert.ok(settled.ok);
    assert.equal(settled.request.maxOutputTokens, 2_000, 'made whole once the first spent little');
  });

  test('a spent budget is put to the user, once for all the calls it stops; raised, they go on', async () => {
    const questions: BudgetQuestion[] = [];
    const books = ledger(worst(), {
      askToRaise: async (question) => {
        questions.push(question);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return 1;
      },
    });
    const first = await books.account('root').reserve(request(), never);
    assert.ok(first.ok);
    first.settle(output(2_000));
    const [a, b] = await Promise.all([
      books.account('reader-1', { parentId: 'root' }).reserve(request(), never),
      books.account('reader-2', { parentId: 'root' }).reserve(request(), never),
    ]);
    assert.ok(a.ok && b.ok);
    assert.equal(questions.length, 1, 'one question for both');
    assert.deepEqual(questions[0]?.status, { scope: 'run', limitUsd: worst(), spentUsd: worst() });
    assert.ok(Math.abs((questions[0]?.neededUsd ?? 0) - worst()) < 1e-3);
    a.settle(output(10));
    b.settle(output(20));
    assert.equal(books.status()?.limitUsd, 1);
    // What a sub-agent spends is its parent's too.
    assert.equal(books.subtree('root').usage.outputTokens, 2_030);
    assert.equal(books.subtree('reader-1').usage.outputTokens, 10);
  });

  test('answered with stop, or not answered, the budget stops the run: every later call is refused', async () => {
    let asked = 0;
    const books = ledger(worst(), {
      askToRaise: async () => {
        asked++;
        return undefined;
      },
    });
    const first = await books.account('root').reserve(request(), never);
    assert.ok(first.ok);
    first.settle(output(2_000));
    assert.equal((await books.account('root').reserve(request(), never)).ok, false);
    assert.equal((await books.account('reader-1', { parentId: 'root' }).reserve(request(), never)).ok, false);
    assert.equal(asked, 1);
  });

  test("a compaction spends from the session's budget, not the run's", async () => {
    const books = new SpendLedger({
      model: SONNET,
      limits: [
        { scope: 'run', limitUsd: worst() },
        { scope: 'session', limitUsd: worst() * 3 },
      ],
      sessionSpentUsd: worst(),
      refusalMessage: () => 'stopped',
    });
    const summary = await books.account('compaction', { sessionOnly: true }).reserve(request(), never);
    assert.ok(summary.ok);
    const report = summary.settle(output(2_000));
    assert.equal(report.runCostUsd, 0);
    assert.ok(Math.abs(report.sessionCostUsd - worst() * 2) < 1e-12);
    const call = await books.account('root').reserve(request(), never);
    assert.ok(call.ok, 'the run has spent nothing of its own budget');
    call.settle(output(2_000));
    assert.deepEqual(books.status(), { scope: 'run', limitUsd: worst(), spentUsd: worst() });
  });

  test('a call waiting for the budget is cancelled with the run', async () => {
    const books = ledger(worst() * 1.2);
    const first = await books.account('a').reserve(request(), never);
    assert.ok(first.ok);
    const controller = new AbortController();
    const waiting = books.account('b').reserve(request(), controller.signal);
    controller.abort();
    assert.deepEqual(await waiting, { ok: false, cancelled: true, message: 'cancelled' });
  });

  test('an answer raises the budget to an amount in dollars; anything else stops', () => {
    assert.equal(parseLimit('2.00'), 2);
    assert.equal(parseLimit(' $5 '), 5);
    assert.equal(parseLimit('7.5 USD'), 7.5);
    for (const answer of ['stop', '', 'more', '-3', '0', 'NaN'])
      assert.equal(parseLimit(answer), undefined, answer);
  });
});
