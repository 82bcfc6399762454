/**
 * The cache planner's rules on their own (providers/cache-plan.ts), which endpoints get which
 * cache fields (quirks as data: presets, catalog, config), and the note that keeps the date and the
 * user's directory out of the system prompt (agent/system-prompt.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { environmentNote } from '../src/agent/system-prompt.ts';
import { resolveConfig, resolveConfiguredModel } from '../src/config/config.ts';
import { anchorIndex, planAnthropicCache, promptCacheKey } from '../src/providers/cache-plan.ts';
import { resolveModel } from '../src/providers/catalog.ts';
import { type ChatMessage, userText } from '../src/providers/messages.ts';
import type { ModelSpec } from '../src/providers/types.ts';

const roles = (pattern: string) => [...pattern].map((c) => (c === 'u' ? 'user' : 'assistant'));

describe('where the breakpoints go', () => {
  test("Anthropic: the tools, the system prompt, the previous request's end, the conversation's end", () => {
    // u a u a u: the previous request ended with the user message before the last answer (index 2).
    assert.deepEqual(
      planAnthropicCache({
        promptCaching: true,
        autoCacheControl: false,
        toolCount: 3,
        roles: roles('uauau'),
      }),
      { tools: true, system: true, messages: [2, 4], auto: false },
    );
    // The API marks the end itself where it can: four breakpoints at most either way.
    assert.deepEqual(
      planAnthropicCache({
        promptCaching: true,
        autoCacheControl: true,
        toolCount: 3,
        roles: roles('uauau'),
      }),
      { tools: true, system: true, messages: [2], auto: true },
    );
    // A first prompt has nothing before it; no tools, no tools breakpoint.
    assert.deepEqual(
      planAnthropicCache({ promptCaching: true, autoCacheControl: false, toolCount: 0, roles: roles('u') }),
      { tools: false, system: true, messages: [0], auto: false },
    );
    assert.deepEqual(
      planAnthropicCache({ promptCaching: false, autoCacheControl: true, toolCount: 3, roles: roles('uau') }),
      { tools: false, system: false, messages: [], auto: false },
    );
  });

  test("a sub-agent's first call marks the history its siblings share; later calls, their own last request", () => {
    // Shared: u a (the parent's conversation), then the task.
    assert.equal(anchorIndex(roles('uau'), 2), 1);
    assert.equal(anchorIndex(roles('uauau'), 2), 2, 'once it has answered, the end of its previous request');
    assert.equal(anchorIndex(roles('u'), 0), undefined);
    // A note and a prompt after an answer that was cut short: still the previous request's end.
    assert.equal(anchorIndex(roles('uauauu')), 2);
  });

  test('the OpenAI key names the session and the role, never the session id itself', () => {
    const key = promptCacheKey('ses_1234', 'reader');
    assert.match(key, /^santra-[\w-]{32}$/);
    assert.ok(!key.includes('ses_1234'));
    assert.equal(promptCacheKey('ses_1234', 'reader'), key, 'stable across a resume');
    assert.notEqual(promptCacheKey('ses_1234', 'executor'), key);
    assert.notEqual(promptCacheKey('ses_5678', 'reader'), key);
  });
});

describe('which endpoints get cache fields', () => {
  const model = (ref: string, env: NodeJS.ProcessEnv = {}, file = {}): ModelSpec =>
    resolveConfiguredModel(resolveConfig(env, file, '/tmp/config.json'), ref) as ModelSpec;
  const flags = ({ compat }: ModelSpec) => [
    compat.promptCaching,
    compat.autoCacheControl,
    compat.promptCacheKey,
  ];

  test("Anthropic's API: breakpoints and the request-level cache_control; another server: breakpoints on blocks", () => {
    assert.deepEqual(flags(model('anthropic/claude-sonnet-5-5')), [true, true, false]);
    const gateway = model('anthropic/claude-sonnet-5-5', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000' });
    assert.deepEqual(flags(gateway), [true, false, false]);
  });

  test("OpenAI's API: prompt_cache_key, and breakpoints from gpt-5.6 on; compatible servers: nothing they may refuse", () => {
    assert.deepEqual(flags(model('openai/gpt-5')), [false, false, true]);
    assert.deepEqual(flags(model('openai/gpt-6.1-sol')), [true, false, true]);
    assert.deepEqual(flags(resolveModel('openai/gpt-7') as ModelSpec), [true, false, true], 'a later family');
    for (const ref of ['groq/openai/gpt-oss-120b', 'ollama/qwen2.5-coder', 'openrouter/deepseek/deepseek-r1'])
      assert.deepEqual(flags(model(ref)), [false, false, false], ref);
    const redirected = { OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' };
    assert.deepEqual(flags(model('openai/gpt-6.1-sol', redirected)), [false, false, false]);
    // One the user knows takes them.
    const told = { providers: { openai: { compat: { promptCacheKey: true } } } };
    assert.deepEqual(flags(model('openai/gpt-5', redirected, told)), [false, false, true]);
  });
});

describe('the date and the directory go with the prompt, when they change', () => {
  const day = (date: string) => new Date(`${date}T12:00:00Z`);
  const withNote = (text: string, note: string | undefined): ChatMessage => ({
    role: 'user',
    content: [{ type: 'text', text }, ...(note === undefined ? [] : [{ type: 'text' as const, text: note }])],
  });

  test('the first prompt says both; the same day and directory are not said again; a change is', () => {
    const first = environmentNote([], undefined, day('2026-11-27'));
    assert.equal(
      first,
      '<environment>\nToday is 2026-11-27. The user is working in the project root.\n</environment>',
    );
    const messages = [
      withNote('hi', first),
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] } as ChatMessage,
    ];
    assert.equal(environmentNote(messages, undefined, day('2026-11-27')), undefined);
    assert.match(String(environmentNote(messages, undefined, day('2026-11-28'))), /Today is 2026-11-28\./);
    assert.match(
      String(environmentNote(messages, '/ws/pkg/api', day('2026-11-27'))),
      /The user is working in \/ws\/pkg\/api: a relative path they mention is relative to that directory/,
    );
    // After a compaction summarised the note away, it is said again.
    assert.equal(
      environmentNote([userText('[Summary of the earlier conversation …]')], undefined, day('2026-11-27')),
      first,
    );
  });
});
