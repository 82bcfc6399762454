/** §2.6 the request limit, §8 models, §9 agents. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { codeOf, describeResponse, prompt, responseTo, startPrompt, until } from './helpers.ts';

const busy: Scenario = {
  name: 'messages: more requests than maxConcurrentRequests',
  covers: ['SANTRA-MSG-016', 'SANTRA-MSG-017', 'SANTRA-MSG-018'],
  async run(ctx) {
    const server = await ctx.start();
    const init = await server.request('initialize', ctx.initializeParams());
    const limit =
      (
        ((init.result as Json | undefined)?.capabilities as Json | undefined)?.limits as
          { maxConcurrentRequests?: number } | undefined
      )?.maxConcurrentRequests ?? 64;
    server.notify('initialized', {});
    // Every prompt stalls in its model stream, so each stays in flight.
    await ctx.script({ repeat: true, text: ['Thinking '], fault: { kind: 'stall', afterEvents: 4 } });
    const ids = Array.from({ length: limit }, () =>
      startPrompt(server, { text: 'Wait', mode: 'simple_chat' }),
    );
    await until(() => ctx.anthropic.requests.length >= limit, 30_000, `${limit} model calls in flight`);
    const extra = await server.request('model/list', {});
    const data = ((extra.error as Json | undefined)?.data ?? {}) as Json;
    ctx.check(
      'SANTRA-MSG-016',
      codeOf(extra) === SantraErrorCodes.ServerBusy && data.limit === limit,
      `request ${limit + 1} with ${limit} in flight: ${describeResponse(extra)}`,
    );
    server.notify('$/cancelRequest', { id: ids[0] });
    const cancelled = await responseTo(server, ids[0], 10_000, 'the response to the cancelled prompt');
    ctx.check(
      'SANTRA-MSG-018',
      (cancelled.result as Json | undefined)?.status === 'cancelled',
      `a $/cancelRequest at the limit: ${describeResponse(cancelled)}`,
    );
    // Full again, so shutdown is checked at the limit itself, not one below it.
    startPrompt(server, { text: 'Wait', mode: 'simple_chat' });
    await until(
      () => ctx.anthropic.requests.length >= limit + 1,
      30_000,
      `${limit} model calls in flight again`,
    );
    const down = await server.request('shutdown', undefined, 20_000);
    ctx.check(
      'SANTRA-MSG-017',
      Object.hasOwn(down, 'result'),
      `shutdown with ${limit} prompts in flight: ${describeResponse(down)}`,
    );
  },
};

const models: Scenario = {
  name: 'models: list, set, placement, refusals',
  covers: [
    'SANTRA-MODEL-001',
    'SANTRA-MODEL-002',
    'SANTRA-MODEL-003',
    'SANTRA-MODEL-004',
    'SANTRA-MODEL-005',
    'SANTRA-MODEL-007',
    'SANTRA-MODEL-008',
  ],
  async run(ctx) {
    const server = await ctx.open();
    // Whatever default the server chose, model/list names the model the next prompt uses.
    const list = await server.request('model/list', {});
    const current = (list.result as Json | undefined)?.current;
    await ctx.script({ text: 'Hello.' });
    await prompt(server, { text: 'Hello', mode: 'simple_chat' });
    const first = (ctx.anthropic.requests.at(-1)?.body as { model?: string } | undefined)?.model;
    ctx.check(
      'SANTRA-MODEL-001',
      typeof current === 'string' && first !== undefined && current === `anthropic/${first}`,
      `model/list said current ${JSON.stringify(current)}; the next prompt's model call named ${String(first)}`,
    );
    const noSession = await server.request('model/list', { sessionId: 'ses_santra_conformance_unknown' });
    ctx.check(
      'SANTRA-MODEL-002',
      codeOf(noSession) === SantraErrorCodes.UnknownSession,
      `model/list for an unknown session: ${describeResponse(noSession)}`,
    );
    const set = await server.request('model/set', { model: 'anthropic/claude-conformance-new-1' });
    ctx.check(
      'SANTRA-MODEL-004',
      (set.result as Json | undefined)?.model === 'anthropic/claude-conformance-new-1',
      `a model the catalog does not list: ${describeResponse(set)}`,
    );
    await ctx.script({ text: 'Hi.' });
    await prompt(server, { text: 'Hello', mode: 'simple_chat' });
    const used = (ctx.anthropic.requests.at(-1)?.body as { model?: string } | undefined)?.model;
    ctx.check(
      'SANTRA-MODEL-003',
      used === 'claude-conformance-new-1',
      `after model/set the next prompt used ${String(used)}`,
    );
    const bare = await server.request('model/set', { model: 'claude-haiku-4-5' });
    ctx.check(
      'SANTRA-MODEL-005',
      (bare.result as Json | undefined)?.model === 'anthropic/claude-haiku-4-5',
      `a bare claude- id: ${describeResponse(bare)}`,
    );
    for (const model of ['nope/nothing', 'openai/gpt-5']) {
      const refused = await server.request('model/set', { model });
      ctx.check(
        'SANTRA-MODEL-007',
        codeOf(refused) === SantraErrorCodes.ModelUnavailable,
        `${model} without a redirected endpoint or an OpenAI key: ${describeResponse(refused)}`,
      );
    }
    const unknown = await server.request('model/set', {
      model: 'claude-haiku-4-5',
      sessionId: 'ses_santra_conformance_unknown',
    });
    ctx.check(
      'SANTRA-MODEL-008',
      codeOf(unknown) === SantraErrorCodes.UnknownSession,
      `model/set for an unknown session: ${describeResponse(unknown)}`,
    );
  },
};

const redirected: Scenario = {
  name: 'models: a redirected OpenAI-compatible endpoint, a default chosen in initialize',
  covers: ['SANTRA-MODEL-006', 'SANTRA-MODEL-009'],
  async run(ctx) {
    const server = await ctx.open({ openai: true, extra: { model: 'anthropic/claude-haiku-4-5' } });
    const list = await server.request('model/list', {});
    ctx.check(
      'SANTRA-MODEL-009',
      (list.result as Json | undefined)?.current === 'anthropic/claude-haiku-4-5',
      `initialize with model: ${describeResponse(list)}`,
    );
    const set = await server.request('model/set', { model: 'nope/nothing' });
    ctx.check(
      'SANTRA-MODEL-006',
      (set.result as Json | undefined)?.model === 'openai/nope/nothing',
      `nope/nothing with OPENAI_BASE_URL on loopback: ${describeResponse(set)}`,
    );
  },
};

const agents: Scenario = {
  name: 'agents: built-in, custom and broken agent files',
  profile: 'santra',
  covers: ['SANTRA-AGENT-001', 'SANTRA-AGENT-002', 'SANTRA-AGENT-003'],
  async run(ctx) {
    const { santra } = ctx;
    const file = santra.customAgent;
    ctx.writeFile('.agents/good.json', JSON.stringify(file));
    ctx.writeFile(
      '.agents/broken.json',
      JSON.stringify({ ...file, id: 'broken_one', toolNames: ['no_such_tool'] }),
    );
    const server = await ctx.open();
    const list = await server.request('agents/list');
    const result = (list.result ?? {}) as { agents?: Json[]; problems?: Json[] };
    const ids = (result.agents ?? []).map((a) => a.id);
    const custom = (result.agents ?? []).find((a) => a.id === file.id);
    ctx.check(
      'SANTRA-AGENT-001',
      ids.includes(santra.agents.executor) && custom?.source === '.agents/good.json',
      `agents: ${ids.join(', ')}; custom: ${JSON.stringify(custom)}`,
    );
    ctx.check(
      'SANTRA-AGENT-002',
      (result.problems ?? []).some((p) => p.file === '.agents/broken.json'),
      `problems: ${JSON.stringify(result.problems)}`,
    );
    await ctx.script({ text: 'Reviewed.' });
    const run = await prompt(server, { text: 'Review', agent: file.id });
    const status = run.phases.filter((p) => p.type === 'status' && String(p.text).includes('broken.json'));
    ctx.check(
      'SANTRA-AGENT-003',
      status.length > 0,
      `status phases: ${JSON.stringify(run.phases.filter((p) => p.type === 'status').map((p) => p.text))}`,
    );
  },
};

const SETUP_KEY = 'sk-ant-api03-conformance-setup-key';

const setup: Scenario = {
  name: 'models: first-run setup saves a key and a model',
  covers: ['SANTRA-MODEL-010', 'SANTRA-MODEL-011'],
  async run(ctx) {
    const server = await ctx.open();
    const refused = await server.request('config/setup', {
      provider: 'no_such_provider',
      apiKey: SETUP_KEY,
      model: 'no_such_provider/x',
    });
    const mismatch = await server.request('config/setup', {
      provider: 'anthropic',
      apiKey: SETUP_KEY,
      model: 'openai/gpt-5',
    });
    ctx.check(
      'SANTRA-MODEL-011',
      codeOf(refused) === JsonRpcErrorCodes.InvalidParams &&
        codeOf(mismatch) === JsonRpcErrorCodes.InvalidParams &&
        /provider/.test(describeResponse(refused)) &&
        /model/.test(describeResponse(mismatch)),
      `an unknown provider: ${describeResponse(refused)}; a model of another provider: ${describeResponse(mismatch)}`,
    );
    const saved = await server.request('config/setup', {
      provider: 'anthropic',
      apiKey: SETUP_KEY,
      model: 'anthropic/claude-haiku-4-5',
    });
    const result = (saved.result ?? {}) as Json;
    const list = await server.request('model/list', {});
    ctx.check(
      'SANTRA-MODEL-010',
      typeof result.file === 'string' &&
        result.model === 'anthropic/claude-haiku-4-5' &&
        (list.result as Json | undefined)?.current === 'anthropic/claude-haiku-4-5',
      `config/setup: ${describeResponse(saved)}; then model/list: ${describeResponse(list)}`,
    );
    // Only a server that took the key had it to leak: a refused config/setup proves nothing.
    if (Object.hasOwn(saved, 'result'))
      ctx.check(
        'SANTRA-SESSION-002',
        !JSON.stringify(server.received).includes(SETUP_KEY),
        `the key sent with config/setup is ${JSON.stringify(server.received).includes(SETUP_KEY) ? 'in a message' : 'in no message'} of the server`,
      );
  },
};

export const CATALOG: Scenario[] = [busy, models, redirected, agents, setup];
