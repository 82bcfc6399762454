/** §10 sessions: saving (even when killed), list, resume and catch-up, export, delete, compact, undo. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import {
  codeOf,
  describeMarkers,
  describeResponse,
  prompt,
  until,
  responseTo,
  sentToModel,
  serverRequest,
  stallingTurn,
  startPrompt,
  textOfNextRun,
  str,
} from './helpers.ts';

const resume: Scenario = {
  name: 'sessions: list, a killed server, resume and catch up, export, delete, other workspaces',
  covers: [
    'SANTRA-SESSION-001',
    'SANTRA-SESSION-005',
    'SANTRA-SESSION-006',
    'SANTRA-SESSION-007',
    'SANTRA-SESSION-008',
    'SANTRA-SESSION-009',
    'SANTRA-SESSION-010',
    'SANTRA-SESSION-011',
    'SANTRA-SESSION-012',
    'SANTRA-SESSION-013',
    'SANTRA-SESSION-014',
  ],
  async run(ctx) {
    const first = await ctx.open();
    await ctx.script(
      { text: 'Answer A.' },
      { text: 'Answer B.' },
      { text: 'Answer A2.' },
      { text: 'Answer B2.' },
    );
    const a = await prompt(first, { text: 'Question conformance-marker-A', mode: 'simple_chat' });
    const b = await prompt(first, { text: 'Question conformance-marker-B', mode: 'simple_chat' });
    const [sesA, sesB] = [a.result.sessionId, b.result.sessionId];
    const list = await first.request('session/list', {});
    const ids = ((((list.result ?? {}) as Json).sessions as Json[] | undefined) ?? []).map(
      (s) => s.sessionId,
    );
    ctx.check(
      'SANTRA-SESSION-005',
      ids[0] === sesB && ids[1] === sesA,
      `session/list: ${JSON.stringify(ids)}`,
    );
    const page = await first.request('session/list', { limit: 1 });
    const cursor = (page.result as Json | undefined)?.nextCursor;
    const next = await first.request('session/list', { limit: 1, cursor });
    const pageIds = [page, next].map((r) =>
      ((((r.result ?? {}) as Json).sessions as Json[] | undefined) ?? []).map((s) => s.sessionId),
    );
    ctx.check(
      'SANTRA-SESSION-006',
      JSON.stringify(pageIds) === JSON.stringify([[sesB], [sesA]]),
      `pages of one: ${JSON.stringify(pageIds)}, cursor ${JSON.stringify(cursor)}`,
    );
    await first.stop(); // SIGKILL: nothing more is saved
    const second = await ctx.open();
    const lastSeq = a.phases.at(-1)?.seq as number;
    const resumed = await second.request('session/resume', { sessionId: sesA, afterSeq: 1 });
    const replayed = second.received.filter(
      (m) => m.method === 'phase' && (m.params as Json).sessionId === sesA,
    );
    const result = (resumed.result ?? {}) as Json;
    ctx.check(
      'SANTRA-SESSION-010',
      result.replayedPhases === lastSeq - 1 &&
        replayed.length === lastSeq - 1 &&
        replayed.every((m) => Number((m.params as Json).seq) > 1),
      `replayed ${replayed.length} phase(s), replayedPhases ${String(result.replayedPhases)}, last seq was ${lastSeq}`,
    );
    const continued = await prompt(second, { text: 'And then?', sessionId: sesA, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-SESSION-001',
      sentToModel(ctx.anthropic.requests, 2).includes('conformance-marker-A'),
      `after the kill, to the model: ${describeMarkers(sentToModel(ctx.anthropic.requests, 2), 'conformance-marker-A')}`,
    );
    ctx.check(
      'SANTRA-SESSION-008',
      continued.phases[0]?.seq === lastSeq + 1 &&
        sentToModel(ctx.anthropic.requests, 2).includes('Answer A.'),
      `the first phase after resume has seq ${String(continued.phases[0]?.seq)} (lastSeq ${lastSeq})`,
    );
    await prompt(second, { text: 'And B?', sessionId: sesB, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-SESSION-009',
      sentToModel(ctx.anthropic.requests, 3).includes('conformance-marker-B'),
      `a prompt naming a saved session, to the model: ${describeMarkers(sentToModel(ctx.anthropic.requests, 3), 'conformance-marker-B')}`,
    );
    const unknown = await second.request('session/resume', { sessionId: 'ses_santra_conformance_unknown' });
    ctx.check(
      'SANTRA-SESSION-012',
      codeOf(unknown) === SantraErrorCodes.UnknownSession,
      `resume of an unknown id: ${describeResponse(unknown)}`,
    );
    const exported = await second.request('session/export', { sessionId: sesA, format: 'markdown' });
    const markdown = str((exported.result as Json | undefined)?.content);
    ctx.check(
      'SANTRA-SESSION-013',
      markdown.includes('conformance-marker-A') && markdown.includes('Answer A.'),
      `export: ${markdown.slice(0, 200)}`,
    );
    const deleted = await second.request('session/delete', { sessionId: sesB });
    const gone = await second.request('session/resume', { sessionId: sesB });
    ctx.check(
      'SANTRA-SESSION-014',
      Object.hasOwn(deleted, 'result') && codeOf(gone) === SantraErrorCodes.UnknownSession,
      `delete: ${describeResponse(deleted)}; then resume: ${describeResponse(gone)}`,
    );
    await second.request('shutdown');
    const other = join(ctx.home, 'other-workspace');
    mkdirSync(other);
    const third = await ctx.open({ workspace: other });
    const own = await third.request('session/list', {});
    const all = await third.request('session/list', { allWorkspaces: true });
    const count = (r: Json) =>
      ((((r.result ?? {}) as Json).sessions as Json[] | undefined) ?? []).filter((s) => s.sessionId === sesA)
        .length;
    ctx.check(
      'SANTRA-SESSION-007',
      count(own) === 0 && count(all) === 1,
      `sesA listed ${count(own)} time(s) without allWorkspaces, ${count(all)} with`,
    );
    const refused = await third.request('session/resume', { sessionId: sesA });
    const data = ((refused.error as Json | undefined)?.data ?? {}) as Json;
    const allowed = await third.request('session/resume', { sessionId: sesA, otherWorkspace: true });
    ctx.check(
      'SANTRA-SESSION-011',
      codeOf(refused) === SantraErrorCodes.SessionInOtherWorkspace &&
        data.workspaceRoot === ctx.workspace &&
        Object.hasOwn(allowed, 'result'),
      `resume from another workspace: ${describeResponse(refused)}; with otherWorkspace: ${describeResponse(allowed)}`,
    );
  },
};

const busy: Scenario = {
  name: 'sessions: delete, compact and undo of a running session',
  covers: ['SANTRA-SESSION-015', 'SANTRA-SESSION-017', 'SANTRA-SESSION-022'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script(stallingTurn());
    const id = startPrompt(server, { text: 'Explain', mode: 'simple_chat' });
    const phase = await server.waitFor((m) => m.method === 'phase', 20_000, 'a phase of the running prompt');
    const sessionId = (phase.params as Json).sessionId;
    const deleted = await server.request('session/delete', { sessionId });
    ctx.check(
      'SANTRA-SESSION-015',
      codeOf(deleted) === SantraErrorCodes.SessionBusy,
      `delete while a prompt runs: ${describeResponse(deleted)}`,
    );
    const compact = await server.request('session/compact', { sessionId });
    ctx.check(
      'SANTRA-SESSION-017',
      codeOf(compact) === SantraErrorCodes.SessionBusy,
      `compact while a prompt runs: ${describeResponse(compact)}`,
    );
    const undo = await server.request('session/undo', { sessionId });
    ctx.check(
      'SANTRA-SESSION-022',
      codeOf(undo) === SantraErrorCodes.SessionBusy,
      `undo while a prompt runs: ${describeResponse(undo)}`,
    );
    server.notify('$/cancelRequest', { id });
    await responseTo(server, id);
  },
};

const compact: Scenario = {
  name: 'sessions: compact, failed and done',
  covers: ['SANTRA-SESSION-016', 'SANTRA-SESSION-017', 'SANTRA-SESSION-018'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' });
    const first = await prompt(server, { text: 'Turn conformance-turn-1', mode: 'simple_chat' });
    const sessionId = first.result.sessionId;
    await prompt(server, { text: 'Turn conformance-turn-2', sessionId, mode: 'simple_chat' });
    await prompt(server, { text: 'Turn conformance-turn-3', sessionId, mode: 'simple_chat' });
    await ctx.script(stallingTurn());
    const compactId = server.nextId();
    server.send({
      jsonrpc: '2.0',
      id: compactId,
      method: 'session/compact',
      params: { sessionId, keepTurns: 1 },
    });
    await until(() => ctx.anthropic.requests.length >= 4, 20_000, 'summary model call');
    const busy = await server.request('prompt', { text: 'Meanwhile', sessionId, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-SESSION-017',
      codeOf(busy) === SantraErrorCodes.SessionBusy,
      `a prompt while compacting: ${describeResponse(busy)}`,
    );
    server.notify('$/cancelRequest', { id: compactId });
    const cancelled = await responseTo(server, compactId);
    await ctx.script({ fault: { kind: 'http_error', status: 400, message: 'bad request' } });
    const failed = await server.request('session/compact', { sessionId, keepTurns: 1 });
    await ctx.script({ text: 'Still whole.' });
    await prompt(server, { text: 'Check', sessionId, mode: 'simple_chat' });
    const whole = sentToModel(ctx.anthropic.requests, ctx.anthropic.requests.length - 1);
    ctx.check(
      'SANTRA-SESSION-018',
      codeOf(cancelled) === JsonRpcErrorCodes.RequestCancelled &&
        codeOf(failed) === JsonRpcErrorCodes.RequestFailed &&
        whole.includes('conformance-turn-1'),
      `cancelled: ${describeResponse(cancelled)}; failed: ${describeResponse(failed)}; the history ${whole.includes('conformance-turn-1') ? 'is' : 'is not'} whole`,
    );
    await ctx.script({ text: 'Summary: conformance-summary-marker.' }, { text: 'After.' });
    const done = await server.request('session/compact', { sessionId, keepTurns: 1 });
    await prompt(server, { text: 'After compaction', sessionId, mode: 'simple_chat' });
    const sent = sentToModel(ctx.anthropic.requests, ctx.anthropic.requests.length - 1);
    ctx.check(
      'SANTRA-SESSION-016',
      (done.result as Json | undefined)?.compacted === true &&
        sent.includes('conformance-summary-marker') &&
        !sent.includes('conformance-turn-1'),
      `compact: ${describeResponse(done)}; next prompt sent the summary: ${sent.includes('conformance-summary-marker')}, the first turn: ${sent.includes('conformance-turn-1')}`,
    );
  },
};

const undo: Scenario = {
  name: 'sessions: undo a change, and one changed since',
  profile: 'santra',
  covers: ['SANTRA-SESSION-020', 'SANTRA-SESSION-021', 'SANTRA-SESSION-022'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    server.handle('approve', (message) =>
      (message.params as Json).toolName === 'session/undo' ? undefined : { decision: 'allow' },
    );
    await ctx.script(
      santra.writeFile({ path: 'u.txt', content: 'u\n' }),
      santra.writeFile({ path: 'v.txt', content: 'v\n' }),
      { text: 'Both written.' },
    );
    const run = await prompt(server, santra.executor('Write two files'));
    const sessionId = run.result.sessionId;
    const first = await server.request('session/undo', { sessionId });
    const changes = ((first.result as Json | undefined)?.changes ?? []) as Json[];
    const asked = server.received.filter(
      (m) => m.method === 'approve' && (m.params as Json).toolName === 'session/undo',
    );
    ctx.check(
      'SANTRA-SESSION-020',
      !existsSync(join(ctx.workspace, 'v.txt')) &&
        asked.length === 0 &&
        JSON.stringify(changes).includes('restored'),
      `undo of v.txt: ${describeResponse(first)}`,
    );
    writeFileSync(join(ctx.workspace, 'u.txt'), 'edited by the user\n');
    const undoId = server.nextId();
    server.send({ jsonrpc: '2.0', id: undoId, method: 'session/undo', params: { sessionId } });
    const approve = await serverRequest(server, 'approve', 2);
    const busy = await server.request('prompt', { text: 'Meanwhile', sessionId, mode: 'simple_chat' });
    ctx.check(
      'SANTRA-SESSION-022',
      codeOf(busy) === SantraErrorCodes.SessionBusy,
      `a prompt while undo waits: ${describeResponse(busy)}`,
    );
    server.send({ jsonrpc: '2.0', id: approve.id, result: { decision: 'reject' } });
    const second = await responseTo(server, undoId);
    ctx.check(
      'SANTRA-SESSION-021',
      (approve.params as Json).toolName === 'session/undo' &&
        readFileSync(join(ctx.workspace, 'u.txt'), 'utf8') === 'edited by the user\n' &&
        JSON.stringify(second.result).includes('kept'),
      `undo of a file changed since: ${describeResponse(second)}`,
    );
  },
};

const created: Scenario = {
  name: 'sessions: a new empty session, continued by a prompt',
  covers: ['SANTRA-SESSION-023'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script({ text: 'Hello.' });
    const made = await server.request('session/new', {});
    const sessionId = (((made.result ?? {}) as Json).session as Json | undefined)?.sessionId;
    const { result } = await prompt(server, { text: 'hi', mode: 'simple_chat', sessionId });
    ctx.check(
      'SANTRA-SESSION-023',
      typeof sessionId === 'string' && result.sessionId === sessionId,
      `session/new: ${describeResponse(made)}; the prompt with its id answered for ${JSON.stringify(result.sessionId)}`,
    );
  },
};

const closed: Scenario = {
  name: 'sessions: session/close ends a session here once, refuses a running one, and the session goes on after',
  covers: ['SANTRA-SESSION-047'],
  async run(ctx) {
    const server = await ctx.open();
    // The second answer streams slowly: its run is certainly going on when the close arrives.
    await ctx.script(
      { text: 'Hello.' },
      { text: ['Slowly: ', 'one, ', 'two, ', 'three, ', 'four.'], chunkDelayMs: 500 },
      { text: 'Still here.' },
    );
    const first = await prompt(server, { text: 'hi', mode: 'simple_chat' });
    const sessionId = first.result.sessionId;
    const running = startPrompt(server, { text: 'count', mode: 'simple_chat', sessionId });
    await textOfNextRun(server, first.result.runId);
    const busy = await server.request('session/close', { sessionId, reason: 'clear' });
    const ended = await responseTo(server, running);
    const close = await server.request('session/close', { sessionId, reason: 'clear' });
    const again = await server.request('session/close', { sessionId });
    const unknown = await server.request('session/close', {
      sessionId: 'ses_00000000-0000-4000-8000-000000000000',
    });
    const after = await prompt(server, { text: 'still there?', mode: 'simple_chat', sessionId });
    const resultOf = (response: Json) => (response.result ?? {}) as Json;
    ctx.check(
      'SANTRA-SESSION-047',
      codeOf(busy) === SantraErrorCodes.SessionBusy &&
        resultOf(ended).status === 'completed' &&
        resultOf(close).closed === true &&
        resultOf(again).closed === false &&
        codeOf(unknown) === SantraErrorCodes.UnknownSession &&
        after.result.sessionId === sessionId &&
        after.result.status === 'completed',
      `while running: ${describeResponse(busy)}; the run: ${describeResponse(ended)}; closed: ${describeResponse(close)}; again: ${describeResponse(again)}; unknown: ${describeResponse(unknown)}; a prompt after: ${describeResponse(after.response)}`,
    );
  },
};

export const SESSIONS: Scenario[] = [resume, busy, compact, undo, created, closed];
