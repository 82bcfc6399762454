/**
 * The fallback chain's decisions (agent/fallback.ts): which failures another model can answer,
 * and the per-model cooldowns — exponential, capped, forgotten at a success — on a test clock.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canAnswerInstead, FallbackChain, type ModelChoice, ModelCooldowns } from '../src/agent/fallback.ts';
import { CATALOG } from '../src/providers/catalog.ts';
import type { ProviderFailure } from '../src/providers/stream.ts';
import type { ProviderEndpoint } from '../src/providers/types.ts';

function choice(provider: string, id: string): ModelChoice {
  const model = CATALOG.find((spec) => spec.provider === provider && spec.id === id);
  assert.ok(model !== undefined, `${provider}/${id} is in the catalog`);
  const endpoint = {
    id: provider,
    name: provider,
    baseUrl: 'http://127.0.0.1:9',
    needsKey: true,
  } as ProviderEndpoint;
  return { ref: `${provider}/${id}`, model, endpoint };
}

const sonnet = choice('anthropic', 'claude-sonnet-4-5');
const haiku = choice('anthropic', 'claude-haiku-4-5');
const gpt = choice('openai', 'gpt-4o');

const failure = (kind: ProviderFailure['kind'], message = 'x'): ProviderFailure => ({
  kind,
  provider: 'anthropic',
  retryable: false,
  message,
});

describe('which failures another model can answer', () => {
  test('transient failures fall back to any other model', () => {
    for (const kind of [
      'overloaded',
      'server',
      'network',
      'timeout',
      'rate_limit',
      'incomplete',
      'stream_error',
    ] as const) {
      assert.ok(canAnswerInstead(failure(kind), sonnet, haiku), kind);
      assert.ok(canAnswerInstead(failure(kind), sonnet, gpt), kind);
      assert.ok(!canAnswerInstead(failure(kind), sonnet, sonnet), `${kind}: not the model that failed`);
    }
  });

  test("the account's failures fall back only to another provider", () => {
    for (const kind of ['auth', 'permission', 'billing'] as const) {
      assert.ok(!canAnswerInstead(failure(kind), sonnet, haiku), kind);
      assert.ok(canAnswerInstead(failure(kind), sonnet, gpt), kind);
    }
  });

  test('a prompt too large falls back only to a model with a larger context window; other bad requests never', () => {
    const tooLarge = failure(
      'bad_request',
      'anthropic: the request was refused (400): prompt is too long: 210000 tokens > 200000 maximum',
    );
    assert.ok(!canAnswerInstead(tooLarge, sonnet, gpt), 'gpt-4o has a smaller window');
    assert.ok(canAnswerInstead(tooLarge, gpt, sonnet), 'claude-sonnet-4-5 has a larger one');
    assert.ok(!canAnswerInstead(failure('bad_request', 'tools.0: invalid schema'), gpt, sonnet));
    for (const kind of ['cancelled', 'output_limit', 'unreadable'] as const)
      assert.ok(!canAnswerInstead(failure(kind), sonnet, gpt), kind);
  });
});

describe('per-model cooldowns', () => {
  test('exponential from 30 s, capped at 30 min, forgotten at a success', () => {
    let now = 1_000_000;
    const cooldowns = new ModelCooldowns({ now: () => now });
    assert.equal(cooldowns.failed('a'), now + 30_000);
    assert.equal(cooldowns.failed('a'), now + 60_000);
    assert.equal(cooldowns.failed('a'), now + 120_000);
    for (let i = 0; i < 10; i++) cooldowns.failed('a');
    assert.equal(cooldowns.coolingUntil('a'), now + 30 * 60_000);
    now += 30 * 60_000;
    assert.equal(cooldowns.coolingUntil('a'), undefined, 'a cooldown ends');
    assert.equal(cooldowns.failed('a'), now + 30 * 60_000, 'failures count until a success');
    cooldowns.succeeded('a');
    assert.equal(cooldowns.coolingUntil('a'), undefined);
    assert.equal(cooldowns.failed('a'), now + 30_000, 'a success resets the count');
  });

  test('a turn starts on the first model not cooling down, back on the first once its cooldown ends', () => {
    let now = 0;
    const chain = new FallbackChain([sonnet, gpt, haiku, gpt], new ModelCooldowns({ now: () => now }));
    assert.deepEqual(
      chain.choices.map((c) => c.ref),
      [sonnet.ref, gpt.ref, haiku.ref],
      'each model once',
    );
    assert.equal(chain.pick().ref, sonnet.ref);
    const fallback = chain.after(
      sonnet,
      failure('overloaded', 'anthropic: overloaded (529). Try again shortly.'),
    );
    assert.equal(fallback?.next.ref, gpt.ref);
    assert.equal(
      fallback?.notice,
      'Falling back to openai/gpt-4o: anthropic/claude-sonnet-4-5 failed (anthropic: overloaded (529)).',
    );
    assert.equal(chain.pick().ref, gpt.ref, 'the failed model is not tried on the next turn');
    assert.equal(chain.after(gpt, failure('server'))?.next.ref, haiku.ref);
    assert.equal(chain.after(haiku, failure('server')), undefined, 'every model is cooling down');
    assert.equal(chain.pick().ref, sonnet.ref, 'with all cooling down, the one whose cooldown ends first');
    now += 30_000;
    assert.equal(chain.pick().ref, sonnet.ref);
    chain.succeeded(sonnet);
    assert.equal(
      chain.after(sonnet, failure('cancelled')),
      undefined,
      'a cancelled call is no failure of the model',
    );
    assert.equal(chain.pick().ref, sonnet.ref);
  });

  test("a request's own failure starts no cooldown: the model is fine", () => {
    const cooldowns = new ModelCooldowns();
    const chain = new FallbackChain([sonnet, gpt], cooldowns);
    assert.equal(chain.after(sonnet, failure('bad_request', 'invalid')), undefined);
    assert.equal(cooldowns.coolingUntil(sonnet.ref), undefined);
  });
});
