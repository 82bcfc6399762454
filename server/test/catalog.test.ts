import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOG, costUsd, estimateTokens, formatUsd, resolveModel } from '../src/providers/catalog.ts';
import { findPreset, PRESETS } from '../src/providers/presets.ts';
import type { ModelSpec } from '../src/providers/types.ts';

function resolved(ref: string, options?: Parameters<typeof resolveModel>[1]): ModelSpec {
  const spec = resolveModel(ref, options);
  assert.ok(spec !== undefined, `${ref} should resolve`);
  return spec;
}

describe('presets', () => {
  test('have unique ids and are found by id', () => {
    assert.equal(new Set(PRESETS.map((preset) => preset.id)).size, PRESETS.length);
    assert.equal(findPreset('groq')?.baseUrl, 'https://api.groq.com/openai/v1');
    assert.equal(findPreset('nvidia')?.keyEnv, 'NVIDIA_API_KEY');
    assert.equal(findPreset('nope'), undefined);
  });

  test('local servers need no key and report usage when asked', () => {
    for (const id of ['ollama', 'lmstudio', 'vllm']) {
      const preset = findPreset(id);
      assert.equal(preset?.needsKey, false, id);
      assert.equal(preset.keyEnv, undefined, id);
      assert.match(preset.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, id);
      assert.equal(preset.compat.streamUsage, true, id);
    }
  });

  test('hosted providers name the variable their key is read from', () => {
    for (const preset of PRESETS.filter((candidate) => candidate.needsKey)) {
      assert.match(preset.keyEnv ?? '', /^[A-Z]+_API_KEY$/, preset.id);
      assert.match(preset.baseUrl, /^https:\/\//, preset.id);
    }
  });
});

describe('CATALOG', () => {
  test('entries are unique, consistent with their provider and plausible', () => {
    const keys = CATALOG.map((spec) => `${spec.provider}/${spec.id}`);
    assert.equal(new Set(keys).size, keys.length);
    for (const spec of CATALOG) {
      assert.equal(spec.api, findPreset(spec.provider)?.api, spec.id);
      assert.ok(spec.maxOutputTokens > 0 && spec.maxOutputTokens <= spec.contextWindow, spec.id);
      assert.ok(spec.pricing !== undefined && spec.pricing.output >= spec.pricing.input, spec.id);
      assert.ok((spec.pricing.cacheRead ?? 0) <= spec.pricing.input, spec.id);
    }
  });

  test('every provider the catalog lists models for has its default model listed, with prices', () => {
    // A default that is not listed would run with a guessed window, no prices and generic quirks.
    const providers = new Set(CATALOG.map((spec) => spec.provider));
    for (const provider of providers) {
      const preset = findPreset(provider);
      assert.ok(preset !== undefined, `${provider} has a preset`);
      const listed = CATALOG.find((spec) => spec.provider === provider && spec.id === preset.defaultModel);
      assert.ok(listed !== undefined, `${provider}'s default ${preset.defaultModel} is in the catalog`);
      assert.ok(listed.pricing !== undefined, `${provider}/${listed.id} has prices`);
    }
  });

  test('Anthropic entries say how they think, and only Anthropic entries do', () => {
    for (const spec of CATALOG) {
      if (spec.api === 'anthropic') {
        assert.ok(['anthropic_thinking', 'none'].includes(spec.compat.reasoning), spec.id);
        assert.ok(['budget', 'adaptive'].includes(spec.compat.thinkingMode), spec.id);
      } else {
        assert.notEqual(spec.compat.reasoning, 'anthropic_thinking', spec.id);
      }
    }
  });

  test('quirks are data: OpenAI reasoning models, Anthropic caching, R1-style reasoning fields', () => {
    for (const id of ['gpt-6.1-sol', 'gpt-6.1-terra', 'gpt-5', 'gpt-5-mini', 'o3', 'o4-mini']) {
      const { compat } = resolved(`openai/${id}`);
      assert.equal(compat.maxTokensField, 'max_completion_tokens', id);
      assert.equal(compat.systemRole, 'developer', id);
    }
    assert.equal(resolved('openai/gpt-4o').compat.maxTokensField, 'max_tokens');
    const sonnet = resolved('anthropic/claude-sonnet-4-5').compat;
    assert.equal(sonnet.reasoning, 'anthropic_thinking');
    assert.equal(sonnet.promptCaching, true);
    assert.equal(resolved('openrouter/deepseek/deepseek-r1').compat.reasoning, 'reasoning_content');
    assert.equal(resolved('together/deepseek-ai/DeepSeek-R1').compat.reasoning, 'think_tags');
  });

  test('Claude thinking: adaptive for the current models and unlisted new ones, a budget for 4.5 and earlier', () => {
    for (const id of ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-fable-5-1', 'claude-sonnet-4-6']) {
      assert.equal(resolved(id).compat.thinkingMode, 'adaptive', id);
    }
    const unlisted = resolved('claude-opus-4-8');
    assert.equal(unlisted.guessed, true);
    assert.equal(unlisted.compat.thinkingMode, 'adaptive');
    for (const id of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1',
      'claude-haiku-4-5',
    ]) {
      assert.equal(resolved(id).compat.thinkingMode, 'budget', id);
    }
    const sonnet = resolved('claude-sonnet-5-5');
    assert.deepEqual([sonnet.contextWindow, sonnet.maxOutputTokens], [1_000_000, 128_000]);
    assert.deepEqual(sonnet.pricing, { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 });
  });
});

describe('resolveModel', () => {
  test('resolves a provider-prefixed reference, keeping slashes in the model id', () => {
    const sonnet = resolved('anthropic/claude-sonnet-4-5');
    assert.deepEqual(
      [sonnet.provider, sonnet.id, sonnet.api, sonnet.contextWindow, sonnet.guessed],
      ['anthropic', 'claude-sonnet-4-5', 'anthropic', 200_000, undefined],
    );
    assert.deepEqual(sonnet.pricing, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    const kimi = resolved('groq/moonshotai/kimi-k2-instruct');
    assert.deepEqual(
      [kimi.provider, kimi.id, kimi.guessed],
      ['groq', 'moonshotai/kimi-k2-instruct', undefined],
    );
  });

  test('resolves bare ids through the catalog', () => {
    assert.equal(resolved('claude-haiku-4-5').provider, 'anthropic');
    assert.equal(resolved('gpt-4.1').provider, 'openai');
    assert.equal(resolved('o3').provider, 'openai');
    assert.equal(resolved('o4-mini').provider, 'openai');
    const kimi = resolved('moonshotai/kimi-k2-instruct');
    assert.deepEqual([kimi.provider, kimi.id], ['groq', 'moonshotai/kimi-k2-instruct']);
  });

  test('matches dated ids and -latest aliases to their entry, keeping the id given', () => {
    const dated = resolved('claude-sonnet-4-5-20250929');
    assert.deepEqual(
      [dated.id, dated.guessed, dated.maxOutputTokens],
      ['claude-sonnet-4-5-20250929', undefined, 64_000],
    );
    assert.equal(resolved('claude-3-5-haiku-20241022').pricing?.input, 0.8);
    assert.equal(resolved('openai/gpt-4o-2024-08-06').pricing?.input, 2.5);
  });

  test('guesses a spec for an unknown model on a known provider', () => {
    const local = resolved('ollama/qwen2.5-coder');
    assert.deepEqual(
      [local.provider, local.id, local.api, local.contextWindow, local.pricing, local.guessed],
      ['ollama', 'qwen2.5-coder', 'openai', 128_000, undefined, true],
    );
    assert.equal(local.compat.streamUsage, true);
    assert.equal(local.compat.reasoning, 'think_tags');
    const claude = resolved('claude-opus-9');
    assert.deepEqual(
      [claude.provider, claude.guessed, claude.compat.promptCaching],
      ['anthropic', true, true],
    );
    assert.equal(resolved('perplexity/sonar-pro').compat.nativeTools, false);
  });

  test('an unlisted OpenAI reasoning model is known by its name: max_completion_tokens and a developer prompt', () => {
    for (const id of ['gpt-6.2-sol', 'gpt-6-astra', 'gpt-7', 'gpt-10-mini', 'o5']) {
      const spec = resolved(`openai/${id}`);
      assert.equal(spec.guessed, true, id);
      assert.equal(spec.compat.maxTokensField, 'max_completion_tokens', id);
      assert.equal(spec.compat.systemRole, 'developer', id);
    }
    for (const id of ['gpt-4.5-preview', 'gpt-3.5-turbo']) {
      assert.equal(resolved(`openai/${id}`).compat.maxTokensField, 'max_tokens', id);
    }
    // A pattern is a guess about OpenAI's own models, not about any server named in the config.
    assert.equal(resolved('groq/gpt-7').compat.maxTokensField, 'max_tokens');
  });

  test('a guessed OpenAI model inherits the quirks of its family', () => {
    const next = resolved('gpt-5.1');
    assert.deepEqual([next.provider, next.guessed, next.pricing], ['openai', true, undefined]);
    assert.equal(next.compat.maxTokensField, 'max_completion_tokens');
    assert.equal(resolved('o3-pro').compat.systemRole, 'developer');
    assert.equal(resolved('openai/gpt-4o-search-preview').compat.maxTokensField, 'max_tokens');
  });

  test('returns undefined only when the provider cannot be determined', () => {
    assert.equal(resolveModel(''), undefined);
    assert.equal(resolveModel('llama3'), undefined);
    assert.equal(resolveModel('nobody/some-model'), undefined);
    assert.equal(resolveModel('mybox/qwen'), undefined);
  });

  test('serves custom providers, their listed models and their compat overrides', () => {
    const providers = {
      mybox: { api: 'openai' as const, models: ['qwen2.5-coder'], compat: { nativeTools: false } },
      relay: { api: 'anthropic' as const },
      groq: { api: 'openai' as const, compat: { parallelToolCalls: false } },
    };
    const box = resolved('mybox/qwen', { providers });
    assert.deepEqual(
      [box.provider, box.api, box.guessed, box.compat.nativeTools],
      ['mybox', 'openai', true, false],
    );
    assert.equal(resolved('qwen2.5-coder', { providers }).provider, 'mybox');
    assert.equal(resolved('relay/claude-x', { providers }).compat.reasoning, 'anthropic_thinking');
    const llama = resolved('groq/llama-3.3-70b-versatile', { providers });
    assert.deepEqual([llama.guessed, llama.compat.parallelToolCalls], [undefined, false]);
  });

  test('sends bare non-Anthropic ids to the default provider', () => {
    const options = { defaultProvider: 'openai' };
    assert.equal(resolved('qwen2.5-coder', options).provider, 'openai');
    assert.equal(resolved('llama-3.3-70b-versatile', options).provider, 'openai');
    assert.equal(resolved('claude-haiku-4-5', options).provider, 'anthropic');
    assert.equal(resolved('groq/llama-3.3-70b-versatile', options).provider, 'groq');
  });
});

describe('costUsd', () => {
  const usage = { inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 10_000, cacheWriteTokens: 5_000 };

  test('charges cache reads and writes at their own prices', () => {
    // 1k × $3 + 2k × $15 + 10k × $0.30 + 5k × $3.75, per million.
    assert.ok(Math.abs(costUsd(resolved('claude-sonnet-4-5'), usage) - 0.05475) < 1e-12);
  });

  test('charges cache writes at the input price when the model has no write price', () => {
    // 1k × $2.50 + 2k × $10 + 10k × $1.25 + 5k × $2.50, per million.
    assert.ok(Math.abs(costUsd(resolved('gpt-4o'), usage) - 0.0475) < 1e-12);
  });

  test('is 0 when pricing is unknown', () => {
    assert.equal(costUsd(resolved('ollama/qwen2.5-coder'), usage), 0);
  });
});

describe('formatUsd', () => {
  for (const [amount, text] of [
    [0, '$0.00'],
    [0.00042, '$0.00042'],
    [0.000123456, '$0.0001235'],
    [0.0099994, '$0.009999'],
    [0.0123, '$0.0123'],
    [0.054751, '$0.0548'],
    [0.99996, '$1.00'],
    [1, '$1.00'],
    [12.3456, '$12.35'],
    [1234.5, '$1234.50'],
  ] as const) {
    test(`${amount} → ${text}`, () => assert.equal(formatUsd(amount), text));
  }
});

describe('estimateTokens', () => {
  test('is ceil(chars / 6)', () => {
    assert.deepEqual([0, 1, 6, 7, 600, 601].map(estimateTokens), [0, 1, 1, 2, 100, 101]);
  });
});
