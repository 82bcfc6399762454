/** §7.3 `approve`: allow, allow_all, reject, feedback, errors, protected locations, commands. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import { ScenarioStop } from '../run/context.ts';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import {
  describeFile,
  fileIn,
  phasesOf,
  prompt,
  responseTo,
  sentToModel,
  serverRequest,
  startPrompt,
  toolResults,
  str,
} from './helpers.ts';

const CONTENT = 'first line\nsecond line\n';

/** Answers every `approve` with `answer(params)`, recording the requests. */
function answering(server: ServerUnderTest, answer: (params: Json) => unknown): Json[] {
  const seen: Json[] = [];
  server.handle('approve', (message) => {
    seen.push(message.params as Json);
    return answer(message.params as Json);
  });
  return seen;
}

const allow: Scenario = {
  name: 'approve: allow a new file, shown exactly',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-001', 'SANTRA-APPROVE-002', 'SANTRA-APPROVE-005', 'SANTRA-MSG-012'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    await ctx.script(santra.writeFile({ path: 'notes/a.txt', content: CONTENT }), { text: 'Written.' });
    const id = startPrompt(server, santra.executor('Write notes/a.txt'));
    const request = await serverRequest(server, 'approve', 0, id);
    ctx.check(
      'SANTRA-APPROVE-001',
      fileIn(ctx, 'notes/a.txt') === undefined,
      `while approve was pending, ${describeFile(ctx, 'notes/a.txt')}`,
    );
    // The same id as the server's pending request, from the client: served as usual.
    const answer = server.next(
      (m) => m.id === request.id && !Object.hasOwn(m, 'method'),
      10_000,
      'the answer to a client request with the id of the pending approve',
    );
    server.send({ jsonrpc: '2.0', id: request.id, method: 'santra-conformance/no-such-method' });
    const own = await answer;
    ctx.check(
      'SANTRA-MSG-012',
      (own.error as Json | undefined)?.code === JsonRpcErrorCodes.MethodNotFound,
      `a client request with id ${JSON.stringify(request.id)}: ${JSON.stringify(own)}`,
    );
    const params = request.params as Json;
    const diff = (params.diff ?? {}) as Json;
    const unified = str(diff.unifiedDiff);
    ctx.check(
      'SANTRA-APPROVE-002',
      params.kind === 'file_change' &&
        params.path === 'notes/a.txt' &&
        diff.added === 2 &&
        diff.removed === 0 &&
        unified.includes('+first line') &&
        unified.includes('+second line') &&
        Array.isArray(diff.hunks) &&
        diff.hunks.length === 1,
      `approve params: ${JSON.stringify(params).slice(0, 400)}`,
    );
    server.send({ jsonrpc: '2.0', id: request.id, result: { decision: 'allow' } });
    const response = await responseTo(server, id);
    const phases = phasesOf(server, (response.result as Json).runId);
    ctx.check(
      'SANTRA-APPROVE-005',
      fileIn(ctx, 'notes/a.txt') === CONTENT,
      `after allow the file holds ${JSON.stringify(fileIn(ctx, 'notes/a.txt'))}`,
    );
    ctx.check(
      'SANTRA-APPROVE-001',
      toolResults(phases)[0]?.status === 'ok',
      `tool_result ${JSON.stringify(toolResults(phases)[0])}`,
    );
  },
};

const allowAll: Scenario = {
  name: 'approve: allow_all, then a protected location and a protected command',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-006', 'SANTRA-APPROVE-013', 'SANTRA-APPROVE-014', 'SANTRA-FRAME-017'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const seen = answering(server, () => ({ decision: 'allow_all' }));
    await ctx.script(
      santra.writeFile({ path: 'one.txt', content: '1\n' }),
      santra.writeFile({ path: 'two.txt', content: '2\n' }),
      santra.runCommand({ command: 'echo santra-conformance-stdout-marker' }),
      santra.writeFile({ path: '.envrc', content: 'export X=1\n' }),
      santra.runCommand({ command: 'echo x >> .bashrc' }),
      { text: 'Done.' },
    );
    const run = await prompt(server, santra.executor('Write files'));
    const paths = seen.map((p) => p.path ?? p.command);
    ctx.check(
      'SANTRA-APPROVE-006',
      seen.length >= 1 &&
        seen[0]?.path === 'one.txt' &&
        fileIn(ctx, 'two.txt') === '2\n' &&
        !paths.includes('two.txt'),
      `approve requests: ${JSON.stringify(paths)}`,
    );
    const envrc = seen.find((p) => p.path === '.envrc');
    ctx.check(
      'SANTRA-APPROVE-013',
      envrc?.protected === true && typeof envrc.protectedReason === 'string',
      `after allow_all, .envrc: ${JSON.stringify(envrc)}`,
    );
    const bashrc = seen.find((p) => typeof p.command === 'string' && p.command.includes('.bashrc'));
    ctx.check(
      'SANTRA-APPROVE-014',
      bashrc?.protected === true,
      `after allow_all, a command appending to .bashrc: ${JSON.stringify(bashrc)}`,
    );
    const echo = run.phases.find((p) => p.type === 'tool_result' && p.toolName === santra.tools.runCommand);
    ctx.check(
      'SANTRA-FRAME-017',
      echo?.status === 'ok' &&
        server.wireFaults.length === 0 &&
        str(echo.output).includes('santra-conformance-stdout-marker'),
      `a command writing to its stdout: ${JSON.stringify(echo)}; wire faults ${server.wireFaults.length}`,
    );
  },
};

const command: Scenario = {
  name: 'approve: a command, shown exactly, control characters visible',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-004'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const seen = answering(server, () => ({ decision: 'reject' }));
    await ctx.script(santra.runCommand({ command: 'printf "a\\033[31mb" > out.txt' }), { text: 'OK.' });
    await prompt(server, santra.executor('Run it'));
    const request = seen[0];
    const shown = str(request?.command);
    ctx.check(
      'SANTRA-APPROVE-004',
      request?.kind === 'command' &&
        shown.startsWith('printf "a') &&
        !/[\x00-\x08\x0b-\x1f\x7f]/.test(shown) &&
        request.cwd === ctx.workspace,
      `approve params: ${JSON.stringify(request)}`,
    );
  },
};

const reject: Scenario = {
  name: 'approve: reject, feedback, an error answer, an invalid result',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-007', 'SANTRA-APPROVE-008', 'SANTRA-APPROVE-010'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const answers: unknown[] = [
      { decision: 'reject' },
      { decision: 'feedback', feedback: 'Use santra-conformance-feedback-marker instead.' },
      {
        error: {
          code: JsonRpcErrorCodes.RequestFailed,
          message: 'no user to ask',
          data: { retryable: false },
        },
      },
      { decision: 'maybe' },
    ];
    let index = 0;
    server.handle('approve', (message) => {
      const answer = answers[index++] as Json;
      return Object.hasOwn(answer, 'error') ? { jsonrpc: '2.0', id: message.id, ...answer } : answer;
    });
    await ctx.script(
      santra.writeFile({ path: 'r1.txt', content: 'x\n' }),
      santra.writeFile({ path: 'r2.txt', content: 'x\n' }),
      santra.writeFile({ path: 'r3.txt', content: 'x\n' }),
      santra.writeFile({ path: 'r4.txt', content: 'x\n' }),
      { text: 'Nothing was written.' },
    );
    const run = await prompt(server, santra.executor('Write four files'));
    const results = toolResults(run.phases);
    ctx.check(
      'SANTRA-APPROVE-007',
      results[0]?.status === 'rejected' &&
        fileIn(ctx, 'r1.txt') === undefined &&
        run.result.status === 'completed',
      `reject: ${JSON.stringify(results[0])}; run ${String(run.result.status)}`,
    );
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-APPROVE-008',
      results[1]?.status === 'rejected' &&
        fileIn(ctx, 'r2.txt') === undefined &&
        told.includes('santra-conformance-feedback-marker'),
      `feedback: ${JSON.stringify(results[1])}; the model was told: ${told.includes('santra-conformance-feedback-marker')}`,
    );
    ctx.check(
      'SANTRA-APPROVE-010',
      results[2]?.status === 'rejected' && fileIn(ctx, 'r3.txt') === undefined,
      `an error answer: ${JSON.stringify(results[2])}`,
    );
    ctx.check(
      'SANTRA-APPROVE-010',
      results[3]?.status === 'rejected' && fileIn(ctx, 'r4.txt') === undefined,
      `an invalid result: ${JSON.stringify(results[3])}`,
    );
  },
};

const noCapability: Scenario = {
  name: 'approve: a client without the approve capability',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-009'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open({ approve: false });
    await ctx.script(santra.writeFile({ path: 'no.txt', content: 'x\n' }), {
      text: 'Could not write.',
    });
    const run = await prompt(server, santra.executor('Write'));
    const asked = server.received.filter((m) => m.method === 'approve');
    const result = toolResults(run.phases)[0];
    ctx.check(
      'SANTRA-APPROVE-009',
      asked.length === 0 && result?.status === 'error' && fileIn(ctx, 'no.txt') === undefined,
      `${asked.length} approve request(s); tool_result ${JSON.stringify(result)}`,
    );
  },
};

const move: Scenario = {
  name: 'approve: a move shows the rename',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-003'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('a.txt', 'content\n');
    const server = await ctx.open();
    const seen = answering(server, () => ({ decision: 'allow' }));
    await ctx.script(santra.moveFile({ from: 'a.txt', to: 'sub/b.txt' }), { text: 'Moved.' });
    await prompt(server, santra.executor('Move it'));
    const request = seen[0];
    const diff = (request?.diff ?? {}) as Json;
    const unified = str(diff.unifiedDiff);
    ctx.check(
      'SANTRA-APPROVE-003',
      request?.operation === 'move' &&
        request.path === 'a.txt' &&
        request.destination === 'sub/b.txt' &&
        unified.includes('--- a/a.txt') &&
        unified.includes('+++ b/sub/b.txt') &&
        diff.added === 0 &&
        diff.removed === 0,
      `approve params: ${JSON.stringify(request)}`,
    );
  },
};

const oversizedAnswer: Scenario = {
  name: 'approve: an oversized answer fails the approval',
  profile: 'santra',
  covers: ['SANTRA-FRAME-013'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    await ctx.script(santra.writeFile({ path: 'big.txt', content: 'x\n' }), { text: 'Not written.' });
    const id = startPrompt(server, santra.executor('Write'));
    const request = await serverRequest(server, 'approve', 0, id);
    if (ctx.maxMessageBytes === undefined)
      throw new ScenarioStop('initialize advertised no capabilities.limits.maxMessageBytes');
    const size = ctx.maxMessageBytes + 1;
    const body = Buffer.alloc(size, 0x20);
    body.write(
      `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"decision":"allow","pad":"`,
      0,
      'utf8',
    );
    body.write('"}}', size - 3, 'utf8');
    server.sendRaw(Buffer.concat([Buffer.from(`Content-Length: ${size}\r\n\r\n`, 'latin1'), body]));
    const response = await responseTo(server, id);
    const tooLarge = server.received.find(
      (m) => (m.error as Json | undefined)?.code === SantraErrorCodes.MessageTooLarge,
    );
    const phases = phasesOf(server, (response.result as Json | undefined)?.runId);
    ctx.check(
      'SANTRA-FRAME-013',
      tooLarge?.id === null &&
        fileIn(ctx, 'big.txt') === undefined &&
        toolResults(phases)[0]?.status === 'rejected',
      `MessageTooLarge ${JSON.stringify(tooLarge)}; tool_result ${JSON.stringify(toolResults(phases)[0])}`,
    );
  },
};

/** Twelve lines: a change of the first and of the last makes two hunks. */
const TWELVE = Array.from({ length: 12 }, (_, i) => `santra-conformance-line-${i + 1}`).join('\n') + '\n';
const BOTH_ENDS = TWELVE.replace('line-1\n', 'line-1-changed\n').replace('line-12\n', 'line-12-changed\n');
const hunkIds = (request: Json | undefined): string[] =>
  (((request?.diff as Json | undefined)?.hunks ?? []) as Json[]).map((hunk) => str(hunk.id));

const someHunks: Scenario = {
  name: 'approve: allow some hunks (ids, only those written, an unknown id, the model told)',
  profile: 'santra',
  covers: ['SANTRA-APPROVE-021', 'SANTRA-APPROVE-022', 'SANTRA-APPROVE-023'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('two.txt', TWELVE);
    ctx.writeFile('bad.txt', TWELVE);
    const server = await ctx.open();
    let asked = 0;
    const seen = answering(server, (params) => {
      asked++;
      const ids = hunkIds(params);
      // 1: reject (to see the ids again); 2: the last hunk only; 3: a known id and an unknown one.
      if (asked === 1) return { decision: 'reject' };
      if (asked === 2) return { decision: 'allow', hunks: [ids[1]] };
      return { decision: 'allow', hunks: [ids[0], 'santra-conformance-no-such-hunk'] };
    });
    await ctx.script(
      santra.writeFile({ path: 'two.txt', content: BOTH_ENDS }),
      santra.writeFile({ path: 'two.txt', content: BOTH_ENDS }),
      santra.writeFile({ path: 'bad.txt', content: BOTH_ENDS }),
      { text: 'Done.' },
    );
    const run = await prompt(server, santra.executor('Change both ends of two files'));
    const [first, second] = [hunkIds(seen[0]), hunkIds(seen[1])];
    ctx.check(
      'SANTRA-APPROVE-021',
      first.length === 2 &&
        first.every((id) => id !== '') &&
        new Set(first).size === 2 &&
        JSON.stringify(first) === JSON.stringify(second),
      `hunk ids of the same change asked twice: ${JSON.stringify(first)}, ${JSON.stringify(second)}`,
    );
    const results = toolResults(run.phases);
    const told = sentToModel(ctx.anthropic.requests, 2);
    ctx.check(
      'SANTRA-APPROVE-022',
      fileIn(ctx, 'two.txt') === TWELVE.replace('line-12\n', 'line-12-changed\n') &&
        results[1]?.status === 'ok' &&
        told.includes('line-1-changed') &&
        told.includes('line-12-changed'),
      `after allowing the second hunk only, ${describeFile(ctx, 'two.txt')}; the model was told of both hunks: ${told.includes('line-1-changed') && told.includes('line-12-changed')}`,
    );
    ctx.check(
      'SANTRA-APPROVE-023',
      fileIn(ctx, 'bad.txt') === TWELVE &&
        results[2]?.status !== 'ok' &&
        str(results[2]?.output).includes('santra-conformance-no-such-hunk'),
      `an answer with an unknown hunk id: ${describeFile(ctx, 'bad.txt')}; tool_result ${JSON.stringify(results[2]).slice(0, 400)}`,
    );
  },
};

const edited: Scenario = {
  name: "approve: allow the person's version of a file, re-checked against the disk",
  profile: 'santra',
  covers: ['SANTRA-APPROVE-024', 'SANTRA-APPROVE-025'],
  async run(ctx) {
    const { santra } = ctx;
    ctx.writeFile('mine.txt', TWELVE);
    ctx.writeFile('moved.txt', TWELVE);
    const server = await ctx.open();
    const mine = BOTH_ENDS.replace('line-1-changed', 'line-1-santra-conformance-person');
    const typed = TWELVE.replace('line-5\n', 'line-5-typed-meanwhile\n');
    let asked = 0;
    const seen = answering(server, (params) => {
      asked++;
      if (params.path === 'moved.txt' && asked === 2) {
        // The user changes the file on disk while the approval waits, then allows an edited version.
        ctx.writeFile('moved.txt', typed);
      }
      return params.path === 'moved.txt' && asked > 2
        ? { decision: 'reject' }
        : { decision: 'allow', content: mine };
    });
    await ctx.script(
      santra.writeFile({ path: 'mine.txt', content: BOTH_ENDS }),
      santra.writeFile({ path: 'moved.txt', content: BOTH_ENDS }),
      { text: 'Done.' },
    );
    await prompt(server, santra.executor('Change both ends'));
    const told = sentToModel(ctx.anthropic.requests, 1);
    ctx.check(
      'SANTRA-APPROVE-024',
      fileIn(ctx, 'mine.txt') === mine && told.includes('line-1-santra-conformance-person'),
      `after allow with content, ${describeFile(ctx, 'mine.txt')}; the model was told of the person's line: ${told.includes('line-1-santra-conformance-person')}`,
    );
    ctx.check(
      'SANTRA-APPROVE-025',
      fileIn(ctx, 'moved.txt') === typed,
      `the file changed on disk before the answer, and the change asked again was rejected: ${describeFile(ctx, 'moved.txt')} (${seen.length} approve requests)`,
    );
  },
};

const editedCommand: Scenario = {
  name: "approve: allow the person's version of a command, a new command asked again",
  profile: 'santra',
  covers: ['SANTRA-APPROVE-026'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const seen = answering(server, (params) =>
      params.command === 'echo model > model-ran.txt'
        ? { decision: 'allow', command: 'echo person > person-ran.txt' }
        : { decision: 'allow' },
    );
    await ctx.script(santra.runCommand({ command: 'echo model > model-ran.txt' }), { text: 'Done.' });
    await prompt(server, santra.executor('Run it'));
    ctx.check(
      'SANTRA-APPROVE-026',
      seen.length === 2 &&
        seen[1]?.command === 'echo person > person-ran.txt' &&
        fileIn(ctx, 'model-ran.txt') === undefined &&
        fileIn(ctx, 'person-ran.txt') === 'person\n',
      `approve requests: ${JSON.stringify(seen.map((p) => p.command))}; ${describeFile(ctx, 'model-ran.txt')}; ${describeFile(ctx, 'person-ran.txt')}`,
    );
  },
};

export const APPROVE: Scenario[] = [
  allow,
  allowAll,
  command,
  reject,
  noCapability,
  move,
  oversizedAnswer,
  someHunks,
  edited,
  editedCommand,
];
