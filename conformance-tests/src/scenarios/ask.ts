/** §7.4 `ask`: options, free text, error answers, no capability, secret answers (§10.1). */
import { JsonRpcErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import type { AskUserArgs } from '../run/santra-profile.ts';
import { describeMarkers, prompt, sentToModel, toolResults } from './helpers.ts';

const QUESTION = {
  prompt: 'Which colour?',
  header: 'Colour',
  options: [
    { label: 'Red', value: 'red-conformance' },
    { label: 'Blue', value: 'blue-conformance' },
  ],
} satisfies AskUserArgs;

const answered: Scenario = {
  name: 'ask: an option, free text, an error answer',
  profile: 'santra',
  covers: ['SANTRA-ASK-002', 'SANTRA-ASK-003', 'SANTRA-ASK-004'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const seen: Json[] = [];
    const answers: unknown[] = [
      { answer: 'blue-conformance' },
      { answer: 'green, santra-conformance-free-text' },
      {
        error: {
          code: JsonRpcErrorCodes.RequestFailed,
          message: 'no user to ask',
          data: { retryable: false },
        },
      },
      { nope: true },
    ];
    server.handle('ask', (message) => {
      seen.push(message.params as Json);
      const answer = answers[seen.length - 1] as Json;
      return Object.hasOwn(answer, 'error') ? { jsonrpc: '2.0', id: message.id, ...answer } : answer;
    });
    await ctx.script(
      santra.askUser(QUESTION),
      santra.askUser({ prompt: 'Any other colour?' }),
      santra.askUser({ prompt: 'Third question?' }),
      santra.askUser({ prompt: 'Fourth question?' }),
      { text: 'Thanks.' },
    );
    const run = await prompt(server, santra.agentTask('Ask me'));
    const first = seen[0] ?? {};
    ctx.check(
      'SANTRA-ASK-002',
      first.prompt === QUESTION.prompt &&
        first.header === QUESTION.header &&
        JSON.stringify(first.options) === JSON.stringify(QUESTION.options),
      `ask params: ${JSON.stringify(first)}`,
    );
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-ASK-003',
      told.includes('blue-conformance') && told.includes('santra-conformance-free-text'),
      `to the model: ${describeMarkers(told, 'blue-conformance', 'santra-conformance-free-text')}`,
    );
    const results = toolResults(run.phases);
    ctx.check(
      'SANTRA-ASK-004',
      results[2]?.status === 'error' && results[3]?.status === 'error' && run.result.status === 'completed',
      `after an error and an invalid answer: ${JSON.stringify(results.slice(2).map((r) => r.status))}, run ${String(run.result.status)}`,
    );
  },
};

const noCapability: Scenario = {
  name: 'ask: a client without the ask capability',
  profile: 'santra',
  covers: ['SANTRA-ASK-001'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open({ ask: false });
    await ctx.script(santra.askUser(QUESTION), { text: 'I will choose myself.' });
    const run = await prompt(server, santra.agentTask('Ask me'));
    const asked = server.received.filter((m) => m.method === 'ask');
    ctx.check(
      'SANTRA-ASK-001',
      asked.length === 0 &&
        toolResults(run.phases)[0]?.status === 'error' &&
        run.result.status === 'completed',
      `${asked.length} ask request(s); run ${String(run.result.status)}`,
    );
  },
};

const secret: Scenario = {
  name: 'ask: a secret answer is redacted',
  profile: 'santra',
  covers: ['SANTRA-SESSION-003'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const secretValue = 'hunter2-santra-conformance-secret';
    server.handle('ask', () => ({ answer: secretValue }));
    await ctx.script(santra.askUser({ prompt: 'Your token?', secret: true }), {
      text: `Got it: ${secretValue}.`,
    });
    const run = await prompt(server, santra.agentTask('Ask for a token'));
    const phases = JSON.stringify(run.phases);
    ctx.check(
      'SANTRA-SESSION-003',
      !phases.includes(secretValue) && phases.includes('[secret]'),
      `the phases ${phases.includes(secretValue) ? 'show' : 'do not show'} the secret`,
    );
    if (ctx.declared.has('session/export')) {
      const exported = await server.request('session/export', {
        sessionId: run.result.sessionId,
        format: 'json',
      });
      ctx.check(
        'SANTRA-SESSION-003',
        !JSON.stringify(exported).includes(secretValue),
        `the exported records ${JSON.stringify(exported).includes(secretValue) ? 'hold' : 'do not hold'} the secret`,
      );
    }
  },
};

export const ASK: Scenario[] = [answered, noCapability, secret];
