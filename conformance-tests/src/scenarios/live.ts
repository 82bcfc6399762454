/**
 * §10.11 live sessions: `session/subscribe` and `session/unsubscribe`. What one server can show
 * (the core): unknown and double subscriptions refused, the replay after `afterSeq`, a session of
 * the client's own run not sent twice, the end of a subscription. What takes two servers sharing
 * a store (the Santra profile: two processes of the command with one home share Santra's session
 * files): a run watched live from the other server, and its approval answered there.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import {
  codeOf,
  describeResponse,
  fileIn,
  prompt,
  responseTo,
  serverRequest,
  startPrompt,
  str,
} from './helpers.ts';

const PHASE_TIMEOUT_MS = 20_000;

/** The `phase` notifications of `sessionId` the server sent, in the order they came. */
function sessionPhases(server: ServerUnderTest, sessionId: unknown, from = 0): Json[] {
  return server.received
    .slice(from)
    .filter((m) => m.method === 'phase' && (m.params as Json | undefined)?.sessionId === sessionId)
    .map((m) => m.params as Json);
}

const seqsOf = (phases: Json[]) => phases.map((phase) => phase.seq as number);

/** Whether `seqs` go up by one each, from `first`. */
function consecutive(seqs: number[], first: number): boolean {
  return seqs.every((seq, index) => seq === first + index);
}

const oneServer: Scenario = {
  name: 'live sessions: unknown and double subscriptions, the replay after afterSeq, unsubscribe',
  covers: ['SANTRA-SESSION-029', 'SANTRA-SESSION-030', 'SANTRA-SESSION-031'],
  async run(ctx) {
    const server = await ctx.open();
    const unknown = await server.request('session/subscribe', { sessionId: 'ses_conformance-unknown' });
    const unknownMessage = str((unknown.error as Json | undefined)?.message);
    await ctx.script({ text: 'First conformance-live answer.' }, { text: 'Second conformance-live answer.' });
    const first = await prompt(server, { text: 'Turn one', mode: 'simple_chat' });
    const sessionId = first.result.sessionId;
    const firstSeqs = seqsOf(first.phases);
    const afterSeq = firstSeqs[1] ?? 0;
    const lastOfFirst = Math.max(...firstSeqs);

    // The replay: the saved phases after afterSeq, before anything else.
    const mark = server.received.length;
    const subscribeId = server.nextId();
    server.send({
      jsonrpc: '2.0',
      id: subscribeId,
      method: 'session/subscribe',
      params: { sessionId, afterSeq, answer: false },
    });
    await server
      .waitFor(
        (m) =>
          m.method === 'phase' &&
          (m.params as Json).seq === lastOfFirst &&
          server.received.indexOf(m) >= mark,
        PHASE_TIMEOUT_MS,
        `the replay up to seq ${lastOfFirst}`,
      )
      .catch(() => undefined);
    const replayed = sessionPhases(server, sessionId, mark);
    const double = await server.request('session/subscribe', { sessionId });
    ctx.check(
      'SANTRA-SESSION-029',
      codeOf(unknown) === SantraErrorCodes.UnknownSession &&
        /session/i.test(unknownMessage) &&
        codeOf(double) === JsonRpcErrorCodes.InvalidParams &&
        /sessionId/.test(JSON.stringify(double.error)),
      `unknown session: ${describeResponse(unknown)}; a second subscription: ${describeResponse(double)}`,
    );

    // The client's own next run: each phase once, not again through the subscription.
    const beforeSecond = server.received.length;
    const second = await prompt(server, { text: 'Turn two', sessionId, mode: 'simple_chat' });
    const secondSeqs = seqsOf(second.phases);
    const unsubscribed = await server.request('session/unsubscribe', { sessionId });
    const ended = await responseTo(server, subscribeId, PHASE_TIMEOUT_MS, 'the answer to session/subscribe');
    const after = server.received.length;
    const again = await server.request('session/unsubscribe', { sessionId });
    const duringSecond = seqsOf(sessionPhases(server, sessionId, beforeSecond));
    const expectedReplay = firstSeqs.filter((seq) => seq > afterSeq);
    ctx.check(
      'SANTRA-SESSION-030',
      JSON.stringify(seqsOf(replayed)) === JSON.stringify(expectedReplay) &&
        consecutive(expectedReplay, afterSeq + 1) &&
        replayed.every((phase) => phase.replayed === true) &&
        second.phases.every((phase) => phase.replayed === undefined) &&
        new Set(duringSecond).size === duringSecond.length &&
        consecutive(secondSeqs, lastOfFirst + 1),
      `afterSeq ${afterSeq}: replayed ${JSON.stringify(seqsOf(replayed))} (saved after it: ${JSON.stringify(expectedReplay)}), marked replayed: ${replayed.map((phase) => String(phase.replayed)).join(',')}; the next run's phases as the client got them: ${JSON.stringify(duringSecond)}`,
    );
    const result = ended.result as Json | undefined;
    const lastSeq = typeof result?.lastSeq === 'number' ? result.lastSeq : -1;
    ctx.check(
      'SANTRA-SESSION-031',
      (unsubscribed.result as Json | undefined)?.unsubscribed === true &&
        lastSeq >= lastOfFirst &&
        lastSeq <= Math.max(...secondSeqs) &&
        result?.replayedPhases === expectedReplay.length &&
        (again.result as Json | undefined)?.unsubscribed === false &&
        sessionPhases(server, sessionId, after).length === 0,
      `unsubscribe: ${describeResponse(unsubscribed)}; session/subscribe answered ${describeResponse(ended)}; unsubscribing again: ${describeResponse(again)}`,
    );
  },
};

const twoServers: Scenario = {
  name: 'live sessions: a run in one server watched live from another, its approval answered there',
  profile: 'santra',
  covers: ['SANTRA-SESSION-030', 'SANTRA-SESSION-032', 'SANTRA-SESSION-033'],
  async run(ctx) {
    const { santra } = ctx;
    // One home: the two processes share Santra's session files, as two programs of one user do.
    const running = await ctx.open();
    const watching = await ctx.open();
    running.handle('approve', () => undefined);
    watching.handle('approve', () => ({ decision: 'allow' }));
    await ctx.script(santra.writeFile({ path: 'live.txt', content: 'conformance-live-subscriber\n' }), {
      text: 'Written.',
    });
    const created = await running.request('session/new', {});
    const sessionId = ((created.result as Json | undefined)?.session as Json | undefined)?.sessionId;
    const subscribeId = watching.nextId();
    watching.send({ jsonrpc: '2.0', id: subscribeId, method: 'session/subscribe', params: { sessionId } });
    // Phases the watching server had when the run's prompt was answered: it saw the run live.
    let seenWhileRunning = -1;
    const promptId = startPrompt(running, santra.executor('Write live.txt', { sessionId }));
    running.onMessage((message) => {
      if (message.id === promptId && !Object.hasOwn(message, 'method'))
        seenWhileRunning = sessionPhases(watching, sessionId).length;
    });
    const asked = await serverRequest(running, 'approve', 0, promptId);
    const put = await serverRequest(watching, 'approve').catch(() => undefined);
    const withdrawn = await running
      .waitFor(
        (m) => m.method === '$/cancelRequest' && (m.params as Json | undefined)?.id === asked.id,
        PHASE_TIMEOUT_MS,
        "the withdrawal of the running server's approve",
      )
      .catch(() => undefined);
    const response = await responseTo(running, promptId);
    const ranPhases = sessionPhases(running, sessionId);
    const last = Math.max(...seqsOf(ranPhases));
    await watching
      .waitFor(
        (m) =>
          m.method === 'phase' &&
          (m.params as Json).sessionId === sessionId &&
          (m.params as Json).seq === last,
        PHASE_TIMEOUT_MS,
        `the watching server's phase ${last}`,
      )
      .catch(() => undefined);
    await watching.request('session/unsubscribe', { sessionId });
    const ended = await responseTo(
      watching,
      subscribeId,
      PHASE_TIMEOUT_MS,
      'the answer to session/subscribe',
    );
    const watched = sessionPhases(watching, sessionId);
    const ranSeqs = seqsOf(ranPhases).sort((a, b) => a - b);
    ctx.check(
      'SANTRA-SESSION-030',
      JSON.stringify(seqsOf(watched)) === JSON.stringify(ranSeqs) && consecutive(ranSeqs, 1),
      `the running server sent seqs ${JSON.stringify(ranSeqs)}; the watching one ${JSON.stringify(seqsOf(watched))}`,
    );
    const file = fileIn(ctx, 'live.txt');
    ctx.check(
      'SANTRA-SESSION-032',
      seenWhileRunning > 0 &&
        (put?.params as Json | undefined)?.kind === 'file_change' &&
        withdrawn !== undefined &&
        (response.result as Json | undefined)?.status === 'completed' &&
        file === 'conformance-live-subscriber\n' &&
        (ended.result as Json | undefined)?.answered === 1,
      `phases the watching server had when the run ended: ${seenWhileRunning}; approve put to it: ${put === undefined ? 'none' : str((put.params as Json | undefined)?.kind)}; the running server's request withdrawn: ${withdrawn !== undefined}; prompt ${describeResponse(response)}; live.txt ${file === undefined ? 'missing' : JSON.stringify(file)}; session/subscribe answered ${describeResponse(ended)}`,
    );
    const live = join(ctx.home, 'santra', 'live');
    const mode = (path: string) => {
      try {
        return statSync(path).mode & 0o777;
      } catch {
        return undefined;
      }
    };
    const folder = mode(live);
    // Named by the session id, or by its hash where that path would not fit a socket address.
    const hashed = createHash('sha256').update(str(sessionId)).digest('hex').slice(0, 16);
    const base = [str(sessionId), hashed].find((name) => mode(join(live, `${name}.sock`)) !== undefined);
    const socket = base === undefined ? undefined : mode(join(live, `${base}.sock`));
    const key = base === undefined ? undefined : mode(join(live, `${base}.key`));
    ctx.check(
      'SANTRA-SESSION-033',
      folder === 0o700 && socket === 0o600 && key === 0o600,
      `${live}: ${folder?.toString(8) ?? 'missing'}; the session's socket: ${socket?.toString(8) ?? 'missing'}; its key: ${key?.toString(8) ?? 'missing'}`,
    );
  },
};

export const LIVE: Scenario[] = [oneServer, twoServers];
