/** §10.12 named sessions: session/rename, names in session/list and session/resume, id prefixes. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { codeOf, describeResponse, prompt } from './helpers.ts';

const sessionOf = (response: Json) => ((response.result ?? {}) as Json).session as Json | undefined;
const messageOf = (response: Json) => {
  const message = (response.error as Json | undefined)?.message;
  return typeof message === 'string' ? message : '';
};

const names: Scenario = {
  name: 'sessions: a name given with session/rename is listed, resumed by, kept through compaction; bad names and ambiguous prefixes refused',
  covers: ['SANTRA-SESSION-034', 'SANTRA-SESSION-035', 'SANTRA-SESSION-036'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script(
      { text: 'Answer A.' },
      { text: 'Answer B.' },
      { text: 'Answer A2.' },
      { text: 'Summary.' },
    );
    const a = await prompt(server, { text: 'Question conformance-names-A', mode: 'simple_chat' });
    const b = await prompt(server, { text: 'Question conformance-names-B', mode: 'simple_chat' });
    const [sesA, sesB] = [String(a.result.sessionId), String(b.result.sessionId)];
    await prompt(server, { text: 'Follow-up', sessionId: sesA, mode: 'simple_chat' });

    const renamed = await server.request('session/rename', { sessionId: sesA, name: 'conformance-line' });
    const listed = await server.request('session/list', {});
    const inList = (((listed.result ?? {}) as Json).sessions as Json[] | undefined) ?? [];
    const nameIn = (id: string) => inList.find((info) => info.sessionId === id)?.name;
    const byName = await server.request('session/resume', { sessionId: 'conformance-line' });
    await server.request('session/compact', { sessionId: sesA, keepTurns: 1 });
    const afterCompact = await server.request('session/resume', { sessionId: sesA });
    const cleared = await server.request('session/rename', { sessionId: sesA, name: null });
    const listedAfter = await server.request('session/list', {});
    const stillNamed = ((((listedAfter.result ?? {}) as Json).sessions as Json[] | undefined) ?? []).filter(
      (info) => info.name !== undefined,
    );
    ctx.check(
      'SANTRA-SESSION-034',
      sessionOf(renamed)?.name === 'conformance-line' &&
        nameIn(sesA) === 'conformance-line' &&
        nameIn(sesB) === undefined &&
        sessionOf(byName)?.name === 'conformance-line' &&
        sessionOf(afterCompact)?.name === 'conformance-line' &&
        cleared.result !== undefined &&
        sessionOf(cleared)?.name === undefined &&
        stillNamed.length === 0,
      `rename: ${describeResponse(renamed)}; listed as ${JSON.stringify(nameIn(sesA))} (the other ${JSON.stringify(nameIn(sesB))}); resumed by name: ${describeResponse(byName)}; after session/compact: ${JSON.stringify(sessionOf(afterCompact)?.name)}; after name null: ${describeResponse(cleared)}, ${stillNamed.length} named in the list`,
    );

    await server.request('session/rename', { sessionId: sesA, name: 'taken' });
    const refusals = await Promise.all(
      ['taken', 'two words', '', 'ses_looks_like_an_id'].map(async (name) => ({
        name,
        response: await server.request('session/rename', { sessionId: sesB, name }),
      })),
    );
    const listedAfterRefusals = await server.request('session/list', {});
    const bName = ((((listedAfterRefusals.result ?? {}) as Json).sessions as Json[] | undefined) ?? []).find(
      (info) => info.sessionId === sesB,
    )?.name;
    ctx.check(
      'SANTRA-SESSION-035',
      refusals.every(
        ({ response }) =>
          codeOf(response) === JsonRpcErrorCodes.InvalidParams && messageOf(response).includes('params.name'),
      ) && bName === undefined,
      `${refusals.map(({ name, response }) => `${JSON.stringify(name)}: ${describeResponse(response)}`).join('; ')}; the session's name afterwards: ${JSON.stringify(bName)}`,
    );

    const prefix = sesB.slice(0, sesB.length - 6);
    const byPrefix = await server.request('session/resume', { sessionId: prefix });
    // Every session id starts with its scheme's first character: that start fits both.
    const ambiguous = await server.request('session/resume', { sessionId: sesA.slice(0, 1) });
    const unknown = await server.request('session/resume', { sessionId: 'no-session-has-this-name' });
    ctx.check(
      'SANTRA-SESSION-036',
      sessionOf(byName)?.sessionId === sesA &&
        sessionOf(byPrefix)?.sessionId === sesB &&
        codeOf(ambiguous) === JsonRpcErrorCodes.InvalidParams &&
        messageOf(ambiguous).includes('params.sessionId') &&
        messageOf(ambiguous).includes(sesA) &&
        messageOf(ambiguous).includes(sesB) &&
        codeOf(unknown) === SantraErrorCodes.UnknownSession,
      `by name: ${describeResponse(byName)}; by the prefix ${prefix}: ${describeResponse(byPrefix)}; by "${sesA.slice(0, 1)}": ${describeResponse(ambiguous)}; by an unknown name: ${describeResponse(unknown)}`,
    );
  },
};

export const NAMES: Scenario[] = [names];
