/** §7.1 `prompt` (and §7.1.1 its editor context), §7.2 `phase`, §5 failures as data, §9 sub-agents. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import {
  codeOf,
  describeMarkers,
  describeResponse,
  prompt,
  responseTo,
  sentToModel,
  sleep,
  startPrompt,
  toolResults,
} from './helpers.ts';

const chat: Scenario = {
  name: 'prompt: a chat, continued in its session',
  covers: [
    'SANTRA-PROMPT-003',
    'SANTRA-PROMPT-004',
    'SANTRA-PROMPT-007',
    'SANTRA-PROMPT-008',
    'SANTRA-PROMPT-009',
    'SANTRA-PHASE-003',
  ],
  async run(ctx) {
    const server = await ctx.open();
    const deltas = ['The answer ', 'is forty', '-two, as ', 'everyone knows.'];
    await ctx.script({ text: deltas }, { text: 'You asked about the answer.' }, { text: 'Another session.' });
    const first = await prompt(server, {
      text: 'What is the answer? (conformance-marker-1)',
      mode: 'simple_chat',
    });
    const text = first.phases
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('');
    ctx.check('SANTRA-PHASE-003', text === deltas.join(''), `text deltas joined: ${JSON.stringify(text)}`);
    const tools = ctx.anthropic.requests.map((r) => ((r.body as { tools?: unknown[] }).tools ?? []).length);
    ctx.check('SANTRA-PROMPT-007', tools[0] === 0, `a simple_chat run offered the model ${tools[0]} tool(s)`);
    const second = await prompt(server, {
      text: 'What did I ask?',
      sessionId: first.result.sessionId,
      mode: 'direct_answer',
      model: 'anthropic/claude-haiku-4-5',
    });
    const model = (ctx.anthropic.requests[1]?.body as { model?: string } | undefined)?.model;
    ctx.check(
      'SANTRA-PROMPT-008',
      model === 'claude-haiku-4-5',
      `a prompt with model anthropic/claude-haiku-4-5: the model call named ${String(model)}`,
    );
    ctx.check(
      'SANTRA-PROMPT-007',
      tools.length > 0 &&
        ((ctx.anthropic.requests[1]?.body as { tools?: unknown[] }).tools ?? []).length === 0,
      `a direct_answer run offered the model ${((ctx.anthropic.requests[1]?.body as { tools?: unknown[] } | undefined)?.tools ?? []).length} tool(s)`,
    );
    ctx.check(
      'SANTRA-PROMPT-004',
      second.result.sessionId === first.result.sessionId &&
        sentToModel(ctx.anthropic.requests, 1).includes('conformance-marker-1'),
      `the second prompt's session ${String(second.result.sessionId)} (the first's ${String(first.result.sessionId)}), to the model: ${describeMarkers(sentToModel(ctx.anthropic.requests, 1), 'conformance-marker-1')}`,
    );
    const third = await prompt(server, { text: 'Something else', mode: 'simple_chat' });
    ctx.check(
      'SANTRA-PROMPT-003',
      third.result.sessionId !== first.result.sessionId,
      `a prompt without sessionId: session ${String(third.result.sessionId)}`,
    );
    const unknown = await server.request('prompt', {
      text: 'x',
      sessionId: 'ses_santra_conformance_unknown',
    });
    ctx.check(
      'SANTRA-PROMPT-009',
      codeOf(unknown) === SantraErrorCodes.UnknownSession,
      `an unknown sessionId: ${describeResponse(unknown)}`,
    );
  },
};

const editorContext: Scenario = {
  name: "prompt: the editor's context (selections, diagnostics, a path outside)",
  covers: ['SANTRA-PROMPT-013', 'SANTRA-PROMPT-014', 'SANTRA-PROMPT-015'],
  async run(ctx) {
    const server = await ctx.open();
    const lines = ['first line', 'conformance-selected-2', 'conformance-selected-3', 'fourth line'];
    writeFileSync(join(ctx.workspace, 'context.txt'), `${lines.join('\n')}\n`);
    await ctx.script({ text: 'Seen.' });
    const diagnostic = 'conformance-diagnostic: unused variable';
    const run = await prompt(server, {
      text: 'What is selected?',
      mode: 'simple_chat',
      context: {
        files: [
          { path: 'context.txt', focused: true, selections: [{ start: { line: 2 }, end: { line: 3 } }] },
        ],
        diagnostics: [
          {
            path: 'context.txt',
            range: { start: { line: 3 }, end: { line: 3 } },
            severity: 'warning',
            message: diagnostic,
          },
        ],
      },
    });
    const sent = sentToModel(ctx.anthropic.requests.slice(0, 1));
    ctx.check(
      'SANTRA-PROMPT-013',
      run.result.status === 'completed' &&
        sent.includes('conformance-selected-2') &&
        sent.includes('conformance-selected-3'),
      `run ${String(run.result.status)}; the model's first call ${describeMarkers(sent, 'conformance-selected-2')}, ${describeMarkers(sent, 'conformance-selected-3')}`,
    );
    ctx.check(
      'SANTRA-PROMPT-014',
      sent.includes(diagnostic),
      `the model's first call ${describeMarkers(sent, diagnostic)}`,
    );
    const calls = ctx.anthropic.requests.length;
    const outside = await server.request('prompt', {
      text: 'And this?',
      mode: 'simple_chat',
      context: { files: [{ path: '../outside-the-workspace.txt' }] },
    });
    ctx.check(
      'SANTRA-PROMPT-015',
      codeOf(outside) === JsonRpcErrorCodes.InvalidParams &&
        describeResponse(outside).includes('params.context.files[0].path') &&
        ctx.anthropic.requests.length === calls,
      `a context file outside the workspace: ${describeResponse(outside)}; model calls after it: ${ctx.anthropic.requests.length - calls}`,
    );
  },
};

const agentAndModel: Scenario = {
  name: 'prompt: agent over mode, a model for one prompt, a tool failure',
  profile: 'santra',
  covers: ['SANTRA-PROMPT-005', 'SANTRA-PROMPT-006', 'SANTRA-PROMPT-008', 'SANTRA-ERR-005'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    await ctx.script(santra.writeFile({ path: 'missing-content.txt' }), { text: 'I will stop here.' });
    const params = santra.executor('Write a file', {
      mode: 'simple_chat',
      model: 'anthropic/claude-haiku-4-5',
    });
    const run = await prompt(server, params);
    const top = run.phases.filter((p) => p.parentAgentId === undefined).map((p) => p.agentId);
    ctx.check(
      'SANTRA-PROMPT-005',
      top.length > 0 && top.every((id) => id === params.agent),
      `top agent ids: ${[...new Set(top)].join(', ')}`,
    );
    const offered = ((ctx.anthropic.requests[0]?.body as { tools?: { name: string }[] }).tools ?? []).map(
      (t) => t.name,
    );
    ctx.check(
      'SANTRA-PROMPT-006',
      offered.includes(santra.tools.writeFile),
      `with agent ${params.agent} and mode simple_chat the model was offered ${offered.join(', ') || 'no tools'}`,
    );
    const model = (ctx.anthropic.requests[0]?.body as { model?: string }).model;
    ctx.check('SANTRA-PROMPT-008', model === 'claude-haiku-4-5', `the model call named ${String(model)}`);
    const results = toolResults(run.phases);
    ctx.check(
      'SANTRA-ERR-005',
      results[0]?.status === 'error' && run.result.status === 'completed',
      `a tool call with bad arguments: ${JSON.stringify(results[0])}; run ${String(run.result.status)}`,
    );
  },
};

const noKey: Scenario = {
  name: 'prompt: no key for the model',
  covers: ['SANTRA-PROMPT-011'],
  async run(ctx) {
    const server = await ctx.open({ noKeys: true });
    const run = await prompt(server, { text: 'Hello', mode: 'simple_chat' });
    const error = run.phases.find((p) => p.type === 'error');
    ctx.check(
      'SANTRA-PROMPT-011',
      run.result.status === 'error' && typeof error?.message === 'string' && /KEY|key/.test(error.message),
      `status ${String(run.result.status)}, error phase ${JSON.stringify(error)}`,
    );
  },
};

const providerFault: Scenario = {
  name: 'errors: provider faults end the run as data',
  covers: ['SANTRA-ERR-004', 'SANTRA-CANCEL-006'],
  async run(ctx) {
    const server = await ctx.open();
    await ctx.script({ fault: { kind: 'http_error', status: 401, message: 'invalid x-api-key' } });
    const refused = await prompt(server, { text: 'Hello', mode: 'simple_chat' });
    const error = refused.phases.find((p) => p.type === 'error');
    ctx.check(
      'SANTRA-ERR-004',
      (refused.result.status === 'error' || refused.result.status === 'interrupted') && error !== undefined,
      `HTTP 401: status ${String(refused.result.status)}, error phase ${JSON.stringify(error)}`,
    );
    await ctx.script({
      text: ['A long answer ', 'that is cut ', 'short by the ', 'network.'],
      fault: { kind: 'drop', afterEvents: 5 },
    });
    const dropped = await prompt(server, { text: 'Hello again', mode: 'simple_chat' });
    const usage = dropped.result.usage as Json;
    ctx.check(
      'SANTRA-ERR-004',
      dropped.result.status === 'error' || dropped.result.status === 'interrupted',
      `a dropped stream: status ${String(dropped.result.status)}`,
    );
    ctx.check(
      'SANTRA-CANCEL-006',
      usage.estimated === true && Number(usage.outputTokens) > 0,
      `usage after a dropped stream: ${JSON.stringify(usage)}`,
    );
    const after = await server.request('model/list', {});
    ctx.check(
      'SANTRA-ERR-004',
      !Object.hasOwn(after, 'error') || codeOf(after) === JsonRpcErrorCodes.MethodNotFound,
      `a request after the faults: ${describeResponse(after)}`,
    );
  },
};

const firstDelta: Scenario = {
  name: 'phase: the first text delta of a turn is sent at once',
  covers: ['SANTRA-PHASE-007'],
  async run(ctx) {
    const server = await ctx.open();
    // The generated tokens after the text are paced: the second comes 4 s after the first.
    await ctx.script({ text: ['First words'], generate: { tokens: 2, tokensPerSecond: 0.25 } });
    const id = startPrompt(server, { text: 'Hello', mode: 'simple_chat' });
    const started = Date.now();
    const first = await server.waitFor(
      (m) => m.method === 'phase' && (m.params as Json).type === 'text',
      10_000,
      'a text phase',
    );
    const waited = Date.now() - started;
    ctx.check(
      'SANTRA-PHASE-007',
      waited < 3000 && String((first.params as Json).text).startsWith('First'),
      `the first text phase came after ${waited} ms (the next deltas were 4 s away)`,
    );
    await responseTo(server, id);
  },
};

const subAgent: Scenario = {
  name: 'agents: a sub-agent under a section',
  profile: 'santra',
  covers: ['SANTRA-AGENT-004', 'SANTRA-AGENT-005'],
  async run(ctx) {
    const { santra } = ctx;
    const server = await ctx.open();
    // The top agent is the one offered spawn_agent; the sub-agent is not.
    const top = (request: { body: unknown }) =>
      ((request.body as { tools?: { name: string }[] }).tools ?? []).some(
        (t) => t.name === santra.tools.spawnAgent,
      );
    await ctx.script(
      {
        match: top,
        ...santra.spawnAgent({ agentId: santra.agents.reader, task: 'Read README.md and summarise it.' }),
      },
      { match: (r) => !top(r), text: 'README.md says hello.' },
      { match: top, text: 'The reader says README.md says hello.' },
    );
    ctx.writeFile('README.md', 'hello\n');
    const run = await prompt(server, santra.agentTask('What does the README say?'));
    const sub = run.phases.filter((p) => p.parentAgentId !== undefined);
    const root = run.phases.find((p) => p.parentAgentId === undefined)?.agentId;
    const first = sub[0];
    ctx.check(
      'SANTRA-AGENT-004',
      sub.length > 0 &&
        sub.every((p) => p.parentAgentId === root && typeof p.agentRole === 'string' && p.agentId !== root),
      `sub-agent phases: ${JSON.stringify(sub.slice(0, 2))}`,
    );
    ctx.check(
      'SANTRA-AGENT-005',
      first?.type === 'section' && typeof first.title === 'string' && first.title !== '',
      `the first phase of the sub-agent: ${JSON.stringify(first)}`,
    );
    await sleep(0);
  },
};

export const RUNS: Scenario[] = [
  chat,
  editorContext,
  agentAndModel,
  noKey,
  providerFault,
  firstDelta,
  subAgent,
];
