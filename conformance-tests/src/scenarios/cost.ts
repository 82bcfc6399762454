/** §7.6 what runs cost, the prompt cache, budgets. */
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { prompt, str, toolResults } from './helpers.ts';

const USAGE = { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 3000, cacheWriteTokens: 200 };

/** `cacheHitRatio` as §7.6 defines it, or undefined when there was no input. */
function hitRatio(usage: Json | undefined): number | undefined {
  if (usage === undefined) return undefined;
  const read = Number(usage.cacheReadTokens ?? 0);
  const total = Number(usage.inputTokens ?? 0) + read + Number(usage.cacheWriteTokens ?? 0);
  return total === 0 ? undefined : read / total;
}

const close = (a: unknown, b: number | undefined) =>
  b === undefined ? a === undefined : typeof a === 'number' && Math.abs(a - b) < 1e-9;

const usagePhases: Scenario = {
  name: 'cost: a usage phase after each model call, the run totals, the cache hit ratio',
  covers: ['SANTRA-COST-001', 'SANTRA-COST-002', 'SANTRA-COST-003'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script({ text: 'Cached answer.', usage: USAGE });
    const run = await prompt(server, { text: 'What does the cache hold?', mode: 'simple_chat' });
    const usage = run.phases.filter((p) => p.type === 'usage');
    const complete = run.phases.findIndex((p) => p.type === 'complete' && p.parentAgentId === undefined);
    const firstUsage = run.phases.findIndex((p) => p.type === 'usage');
    ctx.check(
      'SANTRA-COST-001',
      usage.length === 1 && firstUsage !== -1 && firstUsage < complete,
      `${usage.length} usage phase(s) for one model call, the first at ${firstUsage}, the root's complete at ${complete}`,
    );
    const last = usage.at(-1);
    ctx.check(
      'SANTRA-COST-002',
      last !== undefined &&
        JSON.stringify(last.runUsage) === JSON.stringify(run.result.usage) &&
        last.runCostUsd === run.result.costUsd,
      `the last usage phase: runUsage ${JSON.stringify(last?.runUsage)}, runCostUsd ${String(last?.runCostUsd)}; the result: usage ${JSON.stringify(run.result.usage)}, costUsd ${String(run.result.costUsd)}`,
    );
    const root = run.phases[complete];
    const ratios = [
      ['the usage phase', last?.cacheHitRatio, hitRatio(last?.usage as Json | undefined)],
      ['the root complete phase', root?.cacheHitRatio, hitRatio(root?.usage as Json | undefined)],
      ['the prompt result', run.result.cacheHitRatio, hitRatio(run.result.usage as Json | undefined)],
    ] as const;
    ctx.check(
      'SANTRA-COST-003',
      ratios.every(([, sent, expected]) => close(sent, expected)) && close(last?.cacheHitRatio, 3000 / 4200),
      ratios
        .map(([where, sent, expected]) => `${where}: ${String(sent)} (its usage gives ${String(expected)})`)
        .join('; '),
    );
  },
};

const budget: Scenario = {
  name: 'cost: a run stops at its budget, sub-agents included',
  profile: 'santra',
  covers: ['SANTRA-COST-004', 'SANTRA-COST-005', 'SANTRA-COST-006', 'SANTRA-COST-007'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    // A spent budget may be put to the person (SANTRA-COST-007): this one says stop.
    const asked: Json[] = [];
    server.handle('ask', (message) => {
      asked.push(message.params as Json);
      return { answer: 'stop' };
    });
    // The executor delegates, and its call is reported large: at the profile model's prices ($2
    // per million input tokens, $10 output) it costs about $0.40 of the $0.50, so the reader's
    // first call, whose output cap and thinking room alone need more than what is left, cannot
    // be paid.
    await ctx.script(
      {
        ...santra.spawnAgent({ agentId: santra.agents.reader, task: 'Read everything' }),
        usage: { inputTokens: 200_000, outputTokens: 50 },
      },
      { text: 'never sent: the budget is spent', usage: USAGE },
      { text: 'never sent either', usage: USAGE },
    );
    const limit = 0.5;
    const run = await prompt(server, { ...santra.agentTask('Delegate the reading'), maxBudgetUsd: limit });
    const calls = ctx.anthropic.requests.length;
    ctx.check(
      'SANTRA-COST-004',
      typeof run.result.costUsd === 'number' && run.result.costUsd <= limit && calls >= 1,
      `maxBudgetUsd ${limit}: the run cost ${String(run.result.costUsd)} in ${calls} model call(s)`,
    );
    const errors = run.phases.filter((p) => p.type === 'error' && p.code === 'budget');
    const rootError = errors.find((p) => p.parentAgentId === undefined);
    const lastCall = ctx.anthropic.requests.length;
    ctx.check(
      'SANTRA-COST-005',
      run.result.status === 'error' &&
        rootError !== undefined &&
        /\$/.test(String(rootError.message)) &&
        lastCall === calls,
      `status ${String(run.result.status)}; budget errors ${JSON.stringify(errors.map((p) => ({ agent: p.agentId, message: p.message })))}`,
    );
    ctx.check(
      'SANTRA-COST-007',
      asked.every((question) => typeof question.budget === 'object' && question.budget !== null),
      `${asked.length} budget question(s): ${JSON.stringify(asked.map((q) => ({ prompt: q.prompt, budget: q.budget })))}; answered "stop", the run ended ${String(run.result.status)}`,
    );
    const spawned = toolResults(run.phases).find((r) => r.toolName === santra.tools.spawnAgent);
    const sub = run.phases.find(
      (p) => p.type === 'complete' && p.parentAgentId !== undefined && p.agentRole === santra.agents.reader,
    );
    ctx.check(
      'SANTRA-COST-006',
      sub !== undefined && /budget/i.test(str(spawned?.output)),
      `the reader ${sub === undefined ? 'never completed' : `completed (${String(sub.status)})`}; the executor's spawn_agent result: ${str(spawned?.output).slice(0, 300)}`,
    );
  },
};

export const COST: Scenario[] = [usagePhases, budget];
