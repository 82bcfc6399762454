/** §10.10 `session/import`: another agent's transcript as a session. */
import { JsonRpcErrorCodes } from '#protocol';
import type { Scenario } from '../run/runner.ts';
import type { Json } from '../wire/peer.ts';
import { codeOf, describeMarkers, describeResponse, prompt, sentToModel } from './helpers.ts';

const SESSION = '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f';
const base = {
  isSidechain: false,
  userType: 'external',
  cwd: '/home/ada/project',
  sessionId: SESSION,
  version: '2.1.47',
};

/** A Claude Code transcript in its published shape: a question, a Read call and its result, an answer. */
const TRANSCRIPT = [
  {
    ...base,
    parentUuid: null,
    type: 'user',
    uuid: 'u-1',
    timestamp: '2026-02-19T02:00:00.000Z',
    message: { role: 'user', content: 'conformance-import-question: what is in README.md?' },
  },
  {
    ...base,
    parentUuid: 'u-1',
    type: 'assistant',
    uuid: 'a-1',
    timestamp: '2026-02-19T02:00:02.000Z',
    message: {
      model: 'claude-opus-4-5-20251101',
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_01Conformance',
          name: 'Read',
          input: { file_path: '/home/ada/project/README.md' },
        },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 900, output_tokens: 20 },
    },
  },
  {
    ...base,
    parentUuid: 'a-1',
    type: 'user',
    uuid: 'u-2',
    timestamp: '2026-02-19T02:00:03.000Z',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01Conformance', content: 'conformance-import-result' },
      ],
    },
  },
  {
    ...base,
    parentUuid: 'u-2',
    type: 'assistant',
    uuid: 'a-2',
    timestamp: '2026-02-19T02:00:05.000Z',
    message: {
      model: 'claude-opus-4-5-20251101',
      id: 'msg_02',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'conformance-import-answer' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 950, output_tokens: 8 },
    },
  },
]
  .map((record) => JSON.stringify(record))
  .join('\n');

interface ModelBlock {
  type?: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
}

const imported: Scenario = {
  name: 'session/import: a Claude Code transcript becomes a session the model continues',
  covers: [
    'SANTRA-SESSION-024',
    'SANTRA-SESSION-025',
    'SANTRA-SESSION-026',
    'SANTRA-SESSION-027',
    'SANTRA-SESSION-028',
  ],
  async run(ctx) {
    const server = await ctx.open();
    const damaged = await server.request('session/import', {
      format: 'claude',
      content: `${TRANSCRIPT}\n{"type":"user","uuid":`,
    });
    const listedBefore = await server.request('session/list', {});
    ctx.check(
      'SANTRA-SESSION-024',
      codeOf(damaged) === JsonRpcErrorCodes.InvalidParams &&
        /line 5\b|:5\b/.test(String((damaged.error as Json | undefined)?.message)) &&
        ((listedBefore.result as Json | undefined)?.sessions as unknown[] | undefined)?.length === 0,
      `a transcript whose line 5 is not JSON: ${describeResponse(damaged)}; sessions after it: ${describeResponse(listedBefore)}`,
    );
    const first = await server.request('session/import', { format: 'claude', content: TRANSCRIPT });
    const result = (first.result ?? {}) as Json;
    const session = (result.session ?? {}) as Json;
    const again = await server.request('session/import', { format: 'claude', content: TRANSCRIPT });
    const second = (again.result ?? {}) as Json;
    ctx.check(
      'SANTRA-SESSION-027',
      result.outcome === 'created' &&
        second.outcome === 'unchanged' &&
        typeof session.sessionId === 'string' &&
        (second.session as Json | undefined)?.sessionId === session.sessionId,
      `imported: ${describeResponse(first)}; again: ${describeResponse(again)}`,
    );
    ctx.check(
      'SANTRA-SESSION-028',
      session.costUsd === 0 &&
        ((session.usage as Json | undefined)?.inputTokens ?? 0) === 0 &&
        typeof session.imported === 'object',
      `the imported session: costUsd ${String(session.costUsd)}, usage ${JSON.stringify(session.usage)}, imported ${JSON.stringify(session.imported)}`,
    );
    await ctx.script({ text: 'Continued.' });
    const run = await prompt(server, {
      text: 'And then?',
      sessionId: session.sessionId,
      mode: 'simple_chat',
    });
    const sent = sentToModel(ctx.anthropic.requests.slice(0, 1));
    const body = (ctx.anthropic.requests[0]?.body ?? {}) as {
      model?: string;
      messages?: { content: unknown }[];
    };
    ctx.check(
      'SANTRA-SESSION-025',
      run.result.status === 'completed' &&
        ['conformance-import-question', 'conformance-import-result', 'conformance-import-answer'].every((m) =>
          sent.includes(m),
        ) &&
        body.model !== 'claude-opus-4-5-20251101',
      `the model was sent ${describeMarkers(sent, 'conformance-import-question', 'conformance-import-result', 'conformance-import-answer')}; model ${String(body.model)}`,
    );
    const blocks = (body.messages ?? []).flatMap((m) =>
      Array.isArray(m.content) ? (m.content as ModelBlock[]) : [],
    );
    const calls = blocks.filter((b) => b.type === 'tool_use');
    const results = blocks.filter((b) => b.type === 'tool_result');
    ctx.check(
      'SANTRA-SESSION-026',
      calls.length === 1 &&
        calls[0]?.name !== 'Read' &&
        results.length === 1 &&
        results[0]?.tool_use_id === calls[0]?.id,
      `imported tool calls as the model was sent them: ${JSON.stringify(calls.map((c) => ({ id: c.id, name: c.name })))}, results for ${JSON.stringify(results.map((r) => r.tool_use_id))}`,
    );
  },
};

export const IMPORT: Scenario[] = [imported];
