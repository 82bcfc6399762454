/** §6 cancellation: mid-stream, mid-approval (never answered), by shutdown and end of input; §2.3 ids. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioContext } from '../run/context.ts';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import {
  codeOf,
  describeFile,
  describeResponse,
  phasesOf,
  prompt,
  responseTo,
  serverRequest,
  stallingTurn,
  startPrompt,
} from './helpers.ts';

/** Within a second, as the spec says, with room for a loaded machine. */
const CANCEL_WITHIN_MS = 3000;

async function streaming(
  ctx: ScenarioContext,
  server: ServerUnderTest,
  params: Json = { text: 'Explain', mode: 'simple_chat' },
) {
  await ctx.script(stallingTurn());
  const id = startPrompt(server, params);
  await server.waitFor(
    (m) => m.method === 'phase' && (m.params as Json).type === 'text',
    20_000,
    'a text phase of the streaming run',
  );
  return id;
}

const midStream: Scenario = {
  name: 'cancel: a prompt mid-stream, by a string id',
  covers: [
    'SANTRA-CANCEL-001',
    'SANTRA-CANCEL-003',
    'SANTRA-CANCEL-004',
    'SANTRA-CANCEL-005',
    'SANTRA-CANCEL-007',
    'SANTRA-MSG-010',
    'SANTRA-CANCEL-002',
    'SANTRA-MSG-009',
    'SANTRA-PROMPT-010',
  ],
  async run(ctx) {
    const server = await ctx.open();
    const relay = await ctx.anthropicRelay;
    const id = await streaming(ctx, server);
    // The stream's connection; the prompt in parallel below opens others, which may stay pooled.
    const streamConnections = relay.snapshot();
    const runId = (server.received.find((m) => m.method === 'phase')?.params as Json).runId;
    const sessionId = (server.received.find((m) => m.method === 'phase')?.params as Json).sessionId;
    // The same id again, as a string: a duplicate of the running prompt.
    server.send({ jsonrpc: '2.0', id: String(id), method: 'model/list', params: {} });
    const duplicate = await responseTo(server, String(id), 10_000, 'the answer to the duplicate id');
    ctx.check(
      'SANTRA-MSG-009',
      codeOf(duplicate) === SantraErrorCodes.DuplicateRequestId,
      `request "${String(id)}" while ${String(id)} runs: ${describeResponse(duplicate)}`,
    );
    const busy = await server.request('prompt', { text: 'Meanwhile', sessionId, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-PROMPT-010',
      codeOf(busy) === SantraErrorCodes.SessionBusy,
      `a second prompt for the running session: ${describeResponse(busy)}`,
    );
    await ctx.script({ text: 'In parallel.' });
    const parallel = await prompt(server, { text: 'Another session', mode: 'simple_chat' });
    ctx.check(
      'SANTRA-PROMPT-010',
      parallel.result.status === 'completed',
      `a prompt of another session meanwhile: ${String(parallel.result.status)}`,
    );
    const cancelledAt = Date.now();
    server.notify('$/cancelRequest', { id: String(id) });
    const response = await responseTo(server, id, 10_000, 'the response to the cancelled prompt');
    const took = Date.now() - cancelledAt;
    const result = (response.result ?? {}) as Json;
    const phases = phasesOf(server, runId);
    const last = phases.at(-1);
    ctx.check(
      'SANTRA-CANCEL-001',
      Object.hasOwn(response, 'result') || codeOf(response) === JsonRpcErrorCodes.RequestCancelled,
      `the cancelled prompt: ${describeResponse(response)}`,
    );
    ctx.check(
      'SANTRA-MSG-010',
      response.id === id && result.status === 'cancelled',
      `cancelled by the id "${String(id)}": answered id ${JSON.stringify(response.id)}, status ${String(result.status)}`,
    );
    ctx.check(
      'SANTRA-CANCEL-003',
      result.status === 'cancelled' &&
        last?.type === 'complete' &&
        last.status === 'cancelled' &&
        took < CANCEL_WITHIN_MS,
      `status ${String(result.status)}, last phase ${JSON.stringify(last)}, after ${took} ms`,
    );
    const closed = await relay.allClosed(CANCEL_WITHIN_MS, streamConnections);
    ctx.check(
      'SANTRA-CANCEL-004',
      closed,
      closed ? 'the model stream was closed' : 'the connection of the cancelled stream is still open',
    );
    const usage = (result.usage ?? {}) as Json;
    ctx.check(
      'SANTRA-CANCEL-005',
      usage.estimated === true && Number(usage.outputTokens) > 0,
      `usage of the cut turn: ${JSON.stringify(usage)}`,
    );
    server.notify('$/cancelRequest', { id: String(id) });
    server.notify('$/cancelRequest', { id: 'santra-conformance-never-sent' });
    await ctx.script({ text: 'Still here.' });
    const again = await prompt(server, { text: 'Are you there?', sessionId, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-CANCEL-007',
      again.result.status === 'completed',
      `the next prompt of the session: ${String(again.result.status)}`,
    );
    const stray = server.received.filter((m) => m.id === 'santra-conformance-never-sent');
    ctx.check(
      'SANTRA-CANCEL-002',
      stray.length === 0 && server.received.filter((m) => m.id === id).length === 1,
      `after cancels of an answered and an unknown id: ${stray.length} response(s) to the unknown id, ${server.received.filter((m) => m.id === id).length} to the answered one`,
    );
  },
};

/** What each way of ending a run waiting on approve decides besides the approval. */
const TRIGGER_REQUIREMENT = {
  cancel: 'SANTRA-CANCEL-011',
  shutdown: 'SANTRA-LIFE-009',
  'end of input': 'SANTRA-LIFE-013',
} as const;

function midApproval(trigger: 'cancel' | 'shutdown' | 'end of input'): Scenario {
  return {
    name: `cancel: a run waiting on approve, by ${trigger}, never answered`,
    profile: 'santra',
    covers: ['SANTRA-CANCEL-008', 'SANTRA-CANCEL-009', 'SANTRA-CANCEL-012', TRIGGER_REQUIREMENT[trigger]],
    async run(ctx) {
      const { santra } = ctx;
      const server = await ctx.open();
      await ctx.script(santra.writeFile({ path: 'gated.txt', content: 'x\n' }), { text: 'After.' });
      const id = startPrompt(server, santra.executor('Write'));
      const approve = await serverRequest(server, 'approve', 0, id);
      const started = Date.now();
      let shutdownId: number | undefined;
      if (trigger === 'cancel') server.notify('$/cancelRequest', { id });
      else if (trigger === 'shutdown') {
        shutdownId = server.nextId();
        server.send({ jsonrpc: '2.0', id: shutdownId, method: 'shutdown' });
      } else server.closeInput();
      const withdrawn = await server
        .waitFor(
          (m) => m.method === '$/cancelRequest' && (m.params as Json).id === approve.id,
          10_000,
          `$/cancelRequest for approve ${JSON.stringify(approve.id)}`,
        )
        .catch(() => undefined);
      ctx.check(
        'SANTRA-CANCEL-008',
        withdrawn !== undefined,
        withdrawn === undefined
          ? 'the server did not cancel its approve'
          : 'the server cancelled its approve',
      );
      const response = await responseTo(server, id, 10_000, 'the response to the prompt');
      const took = Date.now() - started;
      ctx.check(
        'SANTRA-CANCEL-009',
        (response.result as Json | undefined)?.status === 'cancelled' && took < 3000,
        `the prompt: ${describeResponse(response)} after ${took} ms`,
      );
      if (trigger === 'cancel') {
        server.send({ jsonrpc: '2.0', id: approve.id, result: { decision: 'allow' } });
        const after = await server.request('santra-conformance/no-such-method', {});
        ctx.check(
          'SANTRA-CANCEL-011',
          !existsSync(join(ctx.workspace, 'gated.txt')) && codeOf(after) === JsonRpcErrorCodes.MethodNotFound,
          `after a late allow: ${describeFile(ctx, 'gated.txt')}; a request then: ${describeResponse(after)}`,
        );
      }
      if (trigger === 'shutdown') {
        const answer = await responseTo(server, shutdownId, 10_000, 'the response to shutdown');
        const order = server.received.indexOf(response) < server.received.indexOf(answer);
        ctx.check(
          'SANTRA-LIFE-009',
          order && answer.result === null,
          `the prompt was answered ${order ? 'before' : 'after'} shutdown`,
        );
      }
      if (trigger === 'end of input') {
        const exit = await server.waitForExit(10_000);
        ctx.check(
          'SANTRA-LIFE-013',
          (response.result as Json | undefined)?.status === 'cancelled' && exit?.code === 1,
          `exit ${JSON.stringify(exit)}`,
        );
      }
      ctx.check(
        'SANTRA-CANCEL-012',
        !existsSync(join(ctx.workspace, 'gated.txt')),
        `after the run ended: ${describeFile(ctx, 'gated.txt')}`,
      );
    },
  };
}

const askCancelled: Scenario = {
  name: 'cancel: a run waiting on ask, never answered',
  profile: 'santra',
  covers: ['SANTRA-CANCEL-008', 'SANTRA-CANCEL-009'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    await ctx.script(santra.askUser({ prompt: 'Sure?' }), { text: 'After.' });
    const id = startPrompt(server, santra.agentTask('Ask'));
    const ask = await serverRequest(server, 'ask', 0, id);
    server.notify('$/cancelRequest', { id });
    const withdrawn = await server
      .waitFor(
        (m) => m.method === '$/cancelRequest' && (m.params as Json).id === ask.id,
        10_000,
        `$/cancelRequest for ask ${JSON.stringify(ask.id)}`,
      )
      .catch(() => undefined);
    ctx.check(
      'SANTRA-CANCEL-008',
      withdrawn !== undefined,
      withdrawn === undefined ? 'the server did not cancel its ask' : 'the server cancelled its ask',
    );
    const response = await responseTo(server, id, 10_000, 'the response to the prompt');
    ctx.check(
      'SANTRA-CANCEL-009',
      (response.result as Json | undefined)?.status === 'cancelled',
      `the prompt: ${describeResponse(response)}`,
    );
  },
};

const shutdownStreaming: Scenario = {
  name: 'lifecycle: shutdown and end of input while a prompt streams',
  covers: ['SANTRA-LIFE-009', 'SANTRA-LIFE-013'],
  async run(ctx) {
    const server = await ctx.open();
    const id = await streaming(ctx, server);
    server.closeInput();
    const response = await responseTo(server, id, 10_000, 'the response to the running prompt');
    ctx.check(
      'SANTRA-LIFE-013',
      (response.result as Json | undefined)?.status === 'cancelled',
      `after end of input: ${describeResponse(response)}`,
    );
    const second = await ctx.open();
    const running = await streaming(ctx, second);
    const answer = await second.request('shutdown', undefined, 10_000);
    const prompted = second.received.findIndex((m) => m.id === running && !Object.hasOwn(m, 'method'));
    ctx.check(
      'SANTRA-LIFE-009',
      prompted !== -1 && prompted < second.received.indexOf(answer),
      prompted === -1
        ? 'the prompt was never answered'
        : `the prompt was answered ${prompted < second.received.indexOf(answer) ? 'before' : 'after'} shutdown`,
    );
  },
};

export const CANCEL: Scenario[] = [
  midStream,
  midApproval('cancel'),
  midApproval('shutdown'),
  midApproval('end of input'),
  askCancelled,
  shutdownStreaming,
];
