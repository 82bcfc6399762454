/** §10.13 rewinding: session/prompts, session/rewind on an idle session, a fork, past a compaction, with files. */
import { JsonRpcErrorCodes } from '#protocol';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { codeOf, describeMarkers, describeResponse, prompt, sentToModel, str } from './helpers.ts';

const resultOf = (response: Json) => (response.result ?? {}) as Json;
const promptTexts = (response: Json) =>
  ((resultOf(response).prompts as Json[] | undefined) ?? []).map((p) => p.text);

const rewind: Scenario = {
  name: 'rewind: the later prompts are gone from the next request, the prompt comes back, a bad runId is refused',
  covers: ['SANTRA-SESSION-037', 'SANTRA-SESSION-038'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script(
      { text: 'Answer one.' },
      { text: 'Answer two.' },
      { text: 'Answer three.' },
      { text: 'Answer two again.' },
    );
    const one = await prompt(server, { text: 'Question rewind-one', mode: 'simple_chat' });
    const sessionId = one.result.sessionId;
    const two = await prompt(server, { text: 'Question rewind-two', mode: 'simple_chat', sessionId });
    await prompt(server, { text: 'Question rewind-three', mode: 'simple_chat', sessionId });
    const listed = await server.request('session/prompts', { sessionId });
    const rewound = await server.request('session/rewind', { sessionId, runId: two.result.runId });
    const after = await server.request('session/prompts', { sessionId });
    const before = ctx.anthropic.requests.length;
    await prompt(server, { text: 'Question rewind-edited', mode: 'simple_chat', sessionId });
    const sent = sentToModel(ctx.anthropic.requests, before);
    ctx.check(
      'SANTRA-SESSION-037',
      resultOf(rewound).text === 'Question rewind-two' &&
        JSON.stringify(promptTexts(listed)) ===
          JSON.stringify(['Question rewind-one', 'Question rewind-two', 'Question rewind-three']) &&
        JSON.stringify(promptTexts(after)) === JSON.stringify(['Question rewind-one']) &&
        sent.includes('Question rewind-one') &&
        sent.includes('Question rewind-edited') &&
        !sent.includes('Question rewind-two') &&
        !sent.includes('Question rewind-three'),
      `session/rewind: ${describeResponse(rewound)}; prompts before ${JSON.stringify(promptTexts(listed))}, after ${JSON.stringify(promptTexts(after))}; the next request: ${describeMarkers(sent, 'Question rewind-one', 'Question rewind-two', 'Question rewind-three', 'Question rewind-edited')}`,
    );
    const unknown = await server.request('session/rewind', { sessionId, runId: 'run-of-no-prompt' });
    const gone = await server.request('session/rewind', { sessionId, runId: two.result.runId });
    const message = (response: Json) => str((response.error as Json | undefined)?.message);
    const stillThere = await server.request('session/prompts', { sessionId });
    ctx.check(
      'SANTRA-SESSION-038',
      [unknown, gone].every(
        (response) =>
          codeOf(response) === JsonRpcErrorCodes.InvalidParams && message(response).includes('params.runId'),
      ) && promptTexts(stillThere).length === 2,
      `an unknown run: ${describeResponse(unknown)}; a prompt already rewound past: ${describeResponse(gone)}; prompts afterwards ${JSON.stringify(promptTexts(stillThere))}`,
    );
  },
};

const fork: Scenario = {
  name: 'rewind: a fork is a new session from before the prompt; the original is left whole',
  covers: ['SANTRA-SESSION-039'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script(
      { text: 'Answer one.' },
      { text: 'Answer two.' },
      { text: 'Fork.' },
      { text: 'Original.' },
    );
    const one = await prompt(server, { text: 'Question fork-one', mode: 'simple_chat' });
    const sessionId = one.result.sessionId;
    const two = await prompt(server, { text: 'Question fork-two', mode: 'simple_chat', sessionId });
    const forked = await server.request('session/rewind', { sessionId, runId: two.result.runId, fork: true });
    const forkId = (resultOf(forked).session as Json | undefined)?.sessionId;
    const atFork = ctx.anthropic.requests.length;
    await prompt(server, { text: 'Question fork-in-fork', mode: 'simple_chat', sessionId: forkId });
    const toFork = sentToModel(ctx.anthropic.requests, atFork);
    const atOriginal = ctx.anthropic.requests.length;
    await prompt(server, { text: 'Question fork-in-original', mode: 'simple_chat', sessionId });
    const toOriginal = sentToModel(ctx.anthropic.requests, atOriginal);
    ctx.check(
      'SANTRA-SESSION-039',
      typeof forkId === 'string' &&
        forkId !== sessionId &&
        resultOf(forked).forkedFrom === sessionId &&
        resultOf(forked).text === 'Question fork-two' &&
        toFork.includes('Question fork-one') &&
        !toFork.includes('Question fork-two') &&
        toOriginal.includes('Question fork-two') &&
        !toOriginal.includes('Question fork-in-fork'),
      `session/rewind with fork: ${describeResponse(forked)}; the fork's next request: ${describeMarkers(toFork, 'Question fork-one', 'Question fork-two')}; the original's: ${describeMarkers(toOriginal, 'Question fork-two', 'Question fork-in-fork')}`,
    );
  },
};

const pastCompactionWithFiles: Scenario = {
  name: 'rewind: past a compaction the history comes back word for word; restoreFiles asks where the user changed a file',
  profile: 'santra',
  covers: ['SANTRA-SESSION-040', 'SANTRA-SESSION-041'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    server.handle('approve', (message) =>
      (message.params as Json).toolName === 'session/undo' ? { decision: 'reject' } : { decision: 'allow' },
    );
    await ctx.script(
      { text: 'Answer one.' },
      santra.writeFile({ path: 'r.txt', content: 'by the model\n' }),
      santra.writeFile({ path: 's.txt', content: 'also by the model\n' }),
      { text: 'Written.' },
      { text: 'Summary-of-rewind-history.' },
      { text: 'Answer again.' },
    );
    const one = await prompt(server, { text: 'Question compact-one', mode: 'simple_chat' });
    const sessionId = one.result.sessionId;
    const two = await prompt(server, { ...santra.executor('Question compact-two writes'), sessionId });
    writeFileSync(join(ctx.workspace, 's.txt'), 'typed by the user\n');
    await server.request('session/compact', { sessionId, keepTurns: 1 });
    const rewound = await server.request('session/rewind', {
      sessionId,
      runId: two.result.runId,
      restoreFiles: true,
    });
    const at = ctx.anthropic.requests.length;
    await prompt(server, { text: 'Question compact-edited', mode: 'simple_chat', sessionId });
    const sent = sentToModel(ctx.anthropic.requests, at);
    ctx.check(
      'SANTRA-SESSION-040',
      sent.includes('Question compact-one') &&
        sent.includes('Answer one.') &&
        !sent.includes('Summary-of-rewind-history') &&
        !sent.includes('Question compact-two'),
      `after a compaction and a rewind to the second prompt, the next request: ${describeMarkers(sent, 'Question compact-one', 'Answer one.', 'Summary-of-rewind-history', 'Question compact-two')}`,
    );
    const asked = server.received.filter(
      (m) => m.method === 'approve' && (m.params as Json).toolName === 'session/undo',
    );
    const read = (path: string) => {
      try {
        return readFileSync(join(ctx.workspace, path), 'utf8');
      } catch {
        return undefined;
      }
    };
    ctx.check(
      'SANTRA-SESSION-041',
      read('r.txt') === undefined &&
        read('s.txt') === 'typed by the user\n' &&
        asked.length === 1 &&
        (asked[0]?.params as Json | undefined)?.path === 's.txt' &&
        JSON.stringify(resultOf(rewound).changes).includes('kept'),
      `session/rewind with restoreFiles: ${describeResponse(rewound)}; r.txt ${read('r.txt') === undefined ? 'removed' : 'still there'}; s.txt ${JSON.stringify(read('s.txt'))}; ${asked.length} restore approval(s)`,
    );
  },
};

export const REWIND: Scenario[] = [rewind, fork, pastCompactionWithFiles];
