/** §8.4 fallback models: a run goes on on the next model when its own is overloaded; a refusal does not. */
import type { RecordedRequest } from '../fake-providers/index.ts';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { prompt } from './helpers.ts';

const FALLBACK = 'anthropic/claude-haiku-5-5';
const toModel = (id: string) => (request: RecordedRequest) =>
  (request.body as { model?: unknown }).model === id;

const fallback: Scenario = {
  name: 'models: an overloaded model falls back to the next of fallbackModels, priced at its own prices; a refusal does not',
  profile: 'santra',
  covers: ['SANTRA-MODEL-012', 'SANTRA-MODEL-013', 'SANTRA-MODEL-014'],
  async run(ctx) {
    const server = await ctx.open();
    const primary = ctx.santra.model.slice('anthropic/'.length);
    const fallbackId = FALLBACK.slice('anthropic/'.length);
    // The profile's model is overloaded, and asks for a wait longer than any server waits: no
    // retries, so the scenario is quick. The fallback model answers.
    await ctx.script(
      {
        match: toModel(primary),
        fault: { kind: 'http_error', status: 529, headers: { 'retry-after': '3600' } },
      },
      {
        match: toModel(fallbackId),
        text: 'Answered by the fallback.',
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
    );
    const run = await prompt(server, {
      text: 'Answer this',
      mode: 'simple_chat',
      fallbackModels: [FALLBACK],
    });
    const lines = run.phases.filter((p) => p.type === 'status').map((p) => String(p.text));
    const naming = lines.filter((line) => line.includes(FALLBACK));
    const errors = run.phases.filter((p) => p.type === 'error');
    ctx.check(
      'SANTRA-MODEL-012',
      run.result.status === 'completed' &&
        run.result.output === 'Answered by the fallback.' &&
        naming.length === 1 &&
        errors.length === 0,
      `status ${String(run.result.status)}, output ${JSON.stringify(run.result.output)}; status lines naming ${FALLBACK}: ${JSON.stringify(naming)}; ${errors.length} error phase(s)`,
    );
    // claude-haiku-5-5: $0.10 in, $0.50 out per million tokens.
    const expected = (1000 * 0.1 + 100 * 0.5) / 1e6;
    const usage = run.phases.filter((p) => p.type === 'usage' && p.model === FALLBACK);
    const byModel = (run.result.modelUsage as Json[] | undefined) ?? [];
    const sum = byModel.reduce((total, share) => total + Number(share.costUsd), 0);
    ctx.check(
      'SANTRA-MODEL-013',
      usage.length === 1 &&
        Math.abs(Number(usage[0]?.costUsd) - expected) < 1e-12 &&
        byModel.some(
          (share) => share.model === FALLBACK && Math.abs(Number(share.costUsd) - expected) < 1e-12,
        ) &&
        Math.abs(sum - Number(run.result.costUsd)) < 1e-12,
      `usage phases of ${FALLBACK}: ${JSON.stringify(usage.map((p) => p.costUsd))} (expected ${expected}); modelUsage ${JSON.stringify(byModel)}; costUsd ${String(run.result.costUsd)}`,
    );

    const refusal = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":9,"output_tokens":1}}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":1}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    // A fresh model of the chain: the profile's one cools down after its failure above.
    const other = 'anthropic/claude-opus-5-5';
    const before = ctx.anthropic.requests.length;
    await ctx.script(
      { match: toModel('claude-opus-5-5'), recorded: refusal },
      { match: toModel(fallbackId), text: 'must not be asked' },
    );
    const declined = await prompt(server, {
      text: 'Something declined',
      mode: 'simple_chat',
      model: other,
      fallbackModels: [FALLBACK],
    });
    const asked = ctx.anthropic.requests.slice(before).map((request) => (request.body as Json).model);
    ctx.check(
      'SANTRA-MODEL-014',
      declined.result.stopReason === 'refusal' && !asked.includes(fallbackId),
      `stopReason ${String(declined.result.stopReason)}; models called: ${JSON.stringify(asked)}`,
    );
  },
};

export const FALLBACK_SCENARIOS: Scenario[] = [fallback];
