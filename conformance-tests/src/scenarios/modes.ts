/** §7.8 permission modes: plan refuses, acceptEdits allows edits, bypassPermissions allows all, protected stays asked, a plan is asked. */
import { JsonRpcErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import {
  codeOf,
  describeFile,
  describeResponse,
  fileIn,
  prompt,
  requestsOf,
  responseTo,
  serverRequest,
  startPrompt,
  str,
  toolResults,
} from './helpers.ts';

/** Answers every `approve` with `decision`, and every `ask` with `answer`. */
function answering(server: ServerUnderTest, decision: string, answer = ''): void {
  server.handle('approve', () => ({ decision }));
  server.handle('ask', () => ({ answer }));
}

const plan: Scenario = {
  name: 'modes: plan refuses file changes and commands without asking; a bad mode is InvalidParams',
  profile: 'santra',
  covers: ['SANTRA-MODE-001', 'SANTRA-MODE-002'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    answering(server, 'allow');
    await ctx.script(
      santra.writeFile({ path: 'planned.txt', content: 'no\n' }),
      santra.runCommand({ command: 'touch made-in-plan-mode' }),
      { text: 'Here is what I would do.' },
    );
    const run = await prompt(server, santra.executor('Change things', { permissionMode: 'plan' }));
    const results = toolResults(run.phases);
    const approvals = requestsOf(server, 'approve');
    ctx.check(
      'SANTRA-MODE-002',
      fileIn(ctx, 'planned.txt') === undefined &&
        fileIn(ctx, 'made-in-plan-mode') === undefined &&
        approvals.length === 0 &&
        results.length === 2 &&
        results.every((result) => result.status === 'error' && /plan mode/i.test(str(result.output))),
      `${describeFile(ctx, 'planned.txt')}; ${describeFile(ctx, 'made-in-plan-mode')}; ${approvals.length} approve request(s); results ${JSON.stringify(results.map((r) => [r.status, str(r.output).slice(0, 80)]))}`,
    );
    const bad = await server.request('prompt', santra.executor('Go', { permissionMode: 'yolo' }), 30_000);
    ctx.check(
      'SANTRA-MODE-001',
      run.result.permissionMode === 'plan' && codeOf(bad) === JsonRpcErrorCodes.InvalidParams,
      `the result's permissionMode ${JSON.stringify(run.result.permissionMode)}; permissionMode "yolo": ${describeResponse(bad)}`,
    );
  },
};

const acceptEdits: Scenario = {
  name: 'modes: acceptEdits writes in the workspace unasked and still asks for a command',
  profile: 'santra',
  covers: ['SANTRA-MODE-003'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    answering(server, 'reject');
    await ctx.script(
      santra.writeFile({ path: 'accepted.txt', content: 'yes\n' }),
      // Not a command that only makes, copies or moves files, which acceptEdits may run unasked.
      santra.runCommand({ command: 'git init -q asked-first' }),
      { text: 'Done.' },
    );
    await prompt(server, santra.executor('Write and run', { permissionMode: 'acceptEdits' }));
    const approvals = requestsOf(server, 'approve');
    ctx.check(
      'SANTRA-MODE-003',
      fileIn(ctx, 'accepted.txt') === 'yes\n' &&
        approvals.length === 1 &&
        approvals[0]?.kind === 'command' &&
        fileIn(ctx, 'asked-first') === undefined,
      `${describeFile(ctx, 'accepted.txt')}; approve requests: ${JSON.stringify(approvals.map((a) => a.kind))}; ${describeFile(ctx, 'asked-first')}`,
    );
  },
};

const bypass: Scenario = {
  name: 'modes: bypassPermissions asks nothing unprotected, and still asks for a protected location',
  profile: 'santra',
  covers: ['SANTRA-MODE-004'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    answering(server, 'reject');
    await ctx.script(
      santra.writeFile({ path: 'free.txt', content: 'free\n' }),
      santra.writeFile({ path: '.santra/guarded.md', content: 'guarded\n' }),
      { text: 'Done.' },
    );
    await prompt(server, santra.executor('Write both', { permissionMode: 'bypassPermissions' }));
    const approvals = requestsOf(server, 'approve');
    ctx.check(
      'SANTRA-MODE-004',
      fileIn(ctx, 'free.txt') === 'free\n' &&
        approvals.length === 1 &&
        approvals[0]?.protected === true &&
        fileIn(ctx, '.santra/guarded.md') === undefined,
      `${describeFile(ctx, 'free.txt')}; approve requests: ${JSON.stringify(approvals.map((a) => [a.path, a.protected]))}; ${describeFile(ctx, '.santra/guarded.md')}`,
    );
  },
};

const presented: Scenario = {
  name: 'modes: a plan is asked with `plan`; approving it switches the mode, feedback keeps plan mode',
  profile: 'santra',
  covers: ['SANTRA-MODE-005'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    const PLAN = '1. Add a parser.\n2. Test it.';
    let answer = 'Also handle empty input.';
    const asked: Json[] = [];
    server.handle('ask', (message) => {
      asked.push(message.params as Json);
      return { answer };
    });
    await ctx.script(santra.exitPlanMode({ plan: PLAN }), { text: 'Revising.' });
    const sentBack = await prompt(server, { ...santra.agentTask('Plan the parser'), permissionMode: 'plan' });
    const feedback = toolResults(sentBack.phases)[0];
    answer = 'acceptEdits';
    await ctx.script(santra.exitPlanMode({ plan: PLAN }), { text: 'Implementing.' });
    const approved = await prompt(server, {
      ...santra.agentTask('Plan the parser'),
      sessionId: sentBack.result.sessionId,
    });
    ctx.check(
      'SANTRA-MODE-005',
      asked.length === 2 &&
        asked.every((params) => params.plan === PLAN) &&
        str(feedback?.output).includes('Also handle empty input.') &&
        sentBack.result.permissionMode === 'plan' &&
        approved.result.permissionMode === 'acceptEdits',
      `ask params: ${JSON.stringify(asked.map((p) => p.plan))}; after feedback: ${JSON.stringify(sentBack.result.permissionMode)}, the agent read ${JSON.stringify(str(feedback?.output).slice(0, 120))}; after "acceptEdits": ${JSON.stringify(approved.result.permissionMode)}`,
    );
  },
};

const midRun: Scenario = {
  name: 'modes: session/setMode while a run waits for an approval gates its later changes in the new mode',
  profile: 'santra',
  covers: ['SANTRA-MODE-007'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    await ctx.script(
      santra.writeFile({ path: 'before-switch.txt', content: 'asked\n' }),
      santra.writeFile({ path: 'after-switch.txt', content: 'not asked\n' }),
      { text: 'Both written.' },
    );
    const made = await server.request('session/new', {});
    const sessionId = (((made.result ?? {}) as Json).session as Json | undefined)?.sessionId;
    const promptId = startPrompt(server, { ...santra.executor('Write two files'), sessionId });
    const first = await serverRequest(server, 'approve', 0, promptId);
    const switched = await server.request('session/setMode', { sessionId, permissionMode: 'acceptEdits' });
    server.send({ jsonrpc: '2.0', id: first.id, result: { decision: 'allow' } });
    const ended = await responseTo(server, promptId);
    const approvals = requestsOf(server, 'approve');
    const result = (switched.result ?? {}) as Json;
    ctx.check(
      'SANTRA-MODE-007',
      result.running === true &&
        result.permissionMode === 'acceptEdits' &&
        approvals.length === 1 &&
        fileIn(ctx, 'after-switch.txt') === 'not asked\n' &&
        ((ended.result ?? {}) as Json).permissionMode === 'acceptEdits',
      `session/setMode: ${describeResponse(switched)}; ${approvals.length} approve request(s); ${describeFile(ctx, 'after-switch.txt')}; the prompt: ${describeResponse(ended)}`,
    );
  },
};

export const MODES: Scenario[] = [plan, acceptEdits, bypass, presented, midRun];
