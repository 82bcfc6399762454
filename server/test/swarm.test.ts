/**
 * The swarm end to end: the built server, the fake provider playing each agent (turns matched by
 * the agent's system prompt), and a client answering approvals.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { ownTask, suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true }, generalist: false };

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const as = (role: string) => (request: RecordedRequest) =>
  systemText(request).includes(`You are the ${role}`);
const turn = (role: string, rest: Omit<FakeTurn, 'match'>): FakeTurn => ({ match: as(role), ...rest });
const call = (id: string, name: string, args: unknown) => ({ toolCalls: [{ id, name, args }] });
const outputOf = (response: Json) => (response.result as Json).output;

describe('the swarm', () => {
  test('the orchestrator delegates to a file picker, a reader and an executor; the tree is on the wire', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'file_picker', task: 'Find the config file' }),
        ),
        turn('file picker', call('f1', 'list_dir', { path: '.' })),
        turn('file picker', call('f2', 'task_completed', { result: 'config.txt holds the setting' })),
        turn(
          'orchestrator',
          call('o2', 'spawn_agent', {
            agentId: 'reader',
            task: 'Read config.txt',
            context: 'found by the file picker',
          }),
        ),
        turn('reader', call('r1', 'read_file', { path: 'config.txt' })),
        turn('reader', call('r2', 'task_completed', { result: 'debug=false on line 1' })),
        turn(
          'orchestrator',
          call('o3', 'spawn_agent', { agentId: 'executor', task: 'Set debug=true in config.txt' }),
        ),
        turn('executor', call('e1', 'read_file', { path: 'config.txt' })),
        turn(
          'executor',
          call('e2', 'str_replace', { path: 'config.txt', oldStr: 'debug=false', newStr: 'debug=true' }),
        ),
        turn('executor', call('e3', 'task_completed', { result: 'debug is now true' })),
        turn('orchestrator', call('o4', 'task_completed', { result: 'Turned debug on in config.txt.' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'config.txt'), 'debug=false\n');
    const approvals: Json[] = [];
    h.client.handle('approve', (params) => {
      approvals.push(params);
      return { decision: 'allow' };
    });
    const { response, phases } = await h.prompt({ text: 'Turn on debug in the config file' });
    assert.equal(outputOf(response), 'Turned debug on in config.txt.');
    assert.equal(readFileSync(join(h.workspace, 'config.txt'), 'utf8'), 'debug=true\n');
    const sections = phases.filter((p) => p.type === 'section');
    assert.deepEqual(
      sections.map((p) => [p.agentId, p.parentAgentId, p.agentRole]),
      [
        ['file_picker-1', 'orchestrator', 'file_picker'],
        ['reader-2', 'orchestrator', 'reader'],
        ['executor-3', 'orchestrator', 'executor'],
      ],
    );
    assert.equal(sections[0]?.title, 'File picker: Find the config file');
    assert.equal(approvals[0]?.agentId, 'executor-3');
    const readerPhases = phases.filter((p) => p.agentId === 'reader-2');
    assert.ok(readerPhases.every((p) => p.parentAgentId === 'orchestrator' && p.agentRole === 'reader'));
    assert.ok(phases.some((p) => p.type === 'status' && String(p.text).startsWith('Route: agent_task')));
    const readerRequest = h.fake.requests.find(as('reader'));
    assert.deepEqual(
      (readerRequest?.body.tools as Json[]).map((tool) => tool.name),
      ['read_file', 'find_file', 'grep_search', 'task_completed', 'set_output'].filter((name) =>
        (readerRequest?.body.tools as Json[]).some((tool) => tool.name === name),
      ),
    );
    assert.match(JSON.stringify(readerRequest?.body.messages), /found by the file picker/);
  });

  test('spawn_agents runs agents in parallel: their model calls overlap, once the first has begun', async () => {
    // Each reader's answer goes to that reader (the two that start together may ask in either order).
    const slowReader = (n: number): FakeTurn => ({
      ...call(`r${n}`, 'task_completed', { result: `part ${n}` }),
      firstByteDelayMs: 700,
      match: (r) => as('reader')(r) && ownTask(`Read part ${n}`)(r),
    });
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agents', {
            agents: [1, 2, 3].map((n) => ({ agentId: 'reader', task: `Read part ${n}` })),
          }),
        ),
        slowReader(1),
        slowReader(2),
        slowReader(3),
        turn('orchestrator', call('o2', 'task_completed', { result: 'all parts read' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    const { response } = await h.prompt({ text: 'Read the three parts of the project' });
    assert.equal(outputOf(response), 'all parts read');
    const readerStarts = h.fake.requests.filter(as('reader')).map((request) => request.receivedAt);
    assert.equal(readerStarts.length, 3);
    // Each reader waits 700 ms for its first byte; sequential calls would start 700 ms apart. The
    // first reader's call goes alone: the others wait until its answer has begun, so that they
    // read the prefix they share from the provider's cache (agent/cache-warmup.ts), then go together.
    const [first = 0, ...followers] = readerStarts;
    assert.ok(
      Math.max(...followers) - Math.min(...followers) < 500 && Math.min(...followers) - first >= 600,
      `reader calls started at ${readerStarts.join(', ')}`,
    );
    const results = ((h.fake.requests.at(-1)?.body.messages as Json[]).at(-1)?.content as Json[])[0]?.content;
    assert.match(String(results), /part 1[\s\S]*part 2[\s\S]*part 3/);
  });

  test('a failing sub-agent returns an error to its parent, and the run goes on', async () => {
    const h = await start(
      'anthropic',
      [
        turn('orchestrator', call('o1', 'spawn_agent', { agentId: 'reader', task: 'Read it' })),
        turn('reader', { fault: { kind: 'http_error', status: 400, message: 'bad request for the reader' } }),
        turn('orchestrator', call('o2', 'task_completed', { result: 'the reader failed, so I stopped' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    const { response, phases } = await h.prompt({ text: 'Read the project files' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(outputOf(response), 'the reader failed, so I stopped');
    assert.ok(phases.some((p) => p.type === 'error' && p.agentId === 'reader-1'));
    const told = ((h.fake.requests.at(-1)?.body.messages as Json[]).at(-1)?.content as Json[])[0];
    assert.equal(told?.is_error, true);
    assert.match(String(told?.content), /reader-1 \(reader\): error/);
  });

  test('an agent never gets a tool outside its whitelist', async () => {
    const h = await start(
      'anthropic',
      [
        turn('orchestrator', call('o1', 'spawn_agent', { agentId: 'reader', task: 'Read it' })),
        turn('reader', call('r1', 'write_file', { path: 'pwned.txt', content: 'x' })),
        turn('reader', call('r2', 'task_completed', { result: 'could not write' })),
        turn('orchestrator', call('o2', 'task_completed', { result: 'done' })),
      ],
      {},
      undefined,
      { capabilities: { approve: true }, args: ['--auto-approve'], generalist: false },
    );
    await h.prompt({ text: 'Read the files' });
    assert.equal(existsSync(join(h.workspace, 'pwned.txt')), false);
    const feedback = (h.fake.requests.filter(as('reader'))[1]?.body.messages as Json[]).at(-1)
      ?.content as Json[];
    assert.match(String(feedback[0]?.content), /Unknown tool "write_file"/);
  });

  test('agents nest only to the depth limit', async () => {
    const h = await start(
      'anthropic',
      [
        turn('orchestrator', call('o1', 'spawn_agent', { agentId: 'nester', task: 'level 1' })),
        ...[1, 2, 3].map((n) => ({
          match: (r: RecordedRequest) =>
            systemText(r).includes('You nest') && !JSON.stringify(r.body.messages).includes('tool_result'),
          ...call(`n${n}`, 'spawn_agent', { agentId: 'nester', task: `level ${n + 1}` }),
        })),
        ...[1, 2, 3].map((n) => ({
          match: (r: RecordedRequest) => systemText(r).includes('You nest'),
          ...call(`d${n}`, 'task_completed', { result: `unwound ${n}` }),
        })),
        turn('orchestrator', call('o2', 'task_completed', { result: 'nested' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.agents'));
    writeFileSync(
      join(h.workspace, '.agents/nester.json'),
      JSON.stringify({
        id: 'nester',
        name: 'Nester',
        description: 'Spawns itself.',
        systemPrompt: 'You nest.',
        toolNames: ['spawn_agent', 'task_completed'],
      }),
    );
    const { response, phases } = await h.prompt({ text: 'Nest the agents in this project' });
    assert.equal(outputOf(response), 'nested');
    assert.equal(
      phases.filter((p) => p.type === 'section').length,
      3,
      'depths 1, 2 and 3; the fourth is refused',
    );
    assert.ok(
      JSON.stringify(h.fake.requests.map((r) => r.body.messages)).includes('nested 3 levels deep at most'),
    );
  });

  test('cancelling the run stops every agent', async () => {
    // The reader's stream never ends by itself: after two text deltas it stalls with the connection
    // open, and Santra's timeouts are set past the test's wait. Only aborting it ends the run.
    const h = await start(
      'anthropic',
      [
        turn('orchestrator', call('o1', 'spawn_agent', { agentId: 'reader', task: 'Read slowly' })),
        turn('reader', {
          // message_start, content_block_start, ping, then two text deltas; then nothing more.
          text: ['partial ', 'answer ', 'never sent'],
          fault: { kind: 'stall', afterEvents: 5 },
        }),
      ],
      { SANTRA_TIMEOUT_IDLE_MS: '600000', SANTRA_TIMEOUT_TOTAL_MS: '600000' },
      undefined,
      APPROVER,
    );
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'Read the whole project' });
    await h.client.next(
      (m) =>
        m.method === 'phase' &&
        (m.params as Json).agentId === 'reader-1' &&
        (m.params as Json).type === 'text',
    );
    h.client.notify('$/cancelRequest', { id });
    const response = await h.client.response(id);
    assert.equal((response.result as Json).status, 'cancelled');
    const completes = h.client.messages.filter(
      (m) => m.method === 'phase' && (m.params as Json).type === 'complete',
    );
    assert.ok(
      completes.some(
        (m) => (m.params as Json).agentId === 'reader-1' && (m.params as Json).status === 'cancelled',
      ),
    );
  });

  test('custom agents: valid files load and can be spawned, invalid ones are reported and skipped', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'poet', task: 'Write a haiku about tests' }),
        ),
        {
          match: (r) => systemText(r).includes('You write haiku'),
          ...call('p1', 'task_completed', { result: 'green bars at midnight' }),
        },
        turn('orchestrator', call('o2', 'task_completed', { result: 'green bars at midnight' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.agents'));
    writeFileSync(
      join(h.workspace, '.agents/poet.json'),
      JSON.stringify({
        id: 'poet',
        name: 'Poet',
        description: 'Writes haiku.',
        systemPrompt: 'You write haiku.',
        toolNames: ['task_completed'],
      }),
    );
    writeFileSync(
      join(h.workspace, '.agents/broken.json'),
      JSON.stringify({
        id: 'broken',
        name: 'Broken',
        description: 'x',
        systemPrompt: 'x',
        toolNames: ['task_completed', 'rm_rf'],
      }),
    );
    const list = h.nextId();
    h.client.request(list, 'agents/list', {});
    const listed = (await h.client.response(list)).result as Json;
    const ids = (listed.agents as Json[]).map((agent) => agent.id);
    assert.deepEqual(ids.slice(0, 6), [
      'orchestrator',
      'file_picker',
      'reader',
      'executor',
      'reviewer',
      'thinker',
    ]);
    // The tool-less top agent of chat and direct answers is listed too: every agentId is named.
    const assistant = (listed.agents as Json[]).find((agent) => agent.id === 'assistant');
    assert.deepEqual([assistant?.canBeSpawned, assistant?.tools], [false, []]);
    assert.ok(ids.includes('poet') && !ids.includes('broken'));
    const [problem] = listed.problems as Json[];
    assert.equal(problem?.file, '.agents/broken.json');
    assert.match(String(problem?.field), /toolNames/);
    const { response, phases } = await h.prompt({ text: 'Ask the poet agent for a haiku about this repo' });
    assert.equal(outputOf(response), 'green bars at midnight');
    assert.ok(phases.some((p) => p.type === 'status' && String(p.text).includes('.agents/broken.json')));
  });

  test('a greeting is answered by one tool-less model call; the route is reported', async () => {
    const h = await start('anthropic', [{ text: 'Hello! How can I help?' }], {}, undefined, {
      generalist: false,
    });
    const { response, phases } = await h.prompt({ text: 'hello' });
    assert.equal(outputOf(response), 'Hello! How can I help?');
    assert.ok(phases.some((p) => p.type === 'status' && String(p.text).startsWith('Route: simple_chat')));
    assert.equal(h.fake.requests.length, 1);
    assert.equal(h.fake.requests[0]?.body.tools, undefined);
  });

  test('the client may force the route', async () => {
    const h = await start(
      'anthropic',
      [turn('orchestrator', call('o1', 'task_completed', { result: 'forced' }))],
      {},
      undefined,
      {
        generalist: false,
      },
    );
    const { response } = await h.prompt({ text: 'hello', mode: 'agent_task' });
    assert.equal(outputOf(response), 'forced');
  });

  test('a sub-agent that runs out of time is stopped and reported to its parent', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'thinker', task: 'Think for a long time' }),
        ),
        turn('thinker', { text: Array.from({ length: 100 }, (_, i) => `thought${i} `), chunkDelayMs: 50 }),
        turn('orchestrator', call('o2', 'task_completed', { result: 'the thinker timed out' })),
      ],
      {},
      { agent: { subAgentTimeoutSeconds: 1 } },
      APPROVER,
    );
    const { response } = await h.prompt({ text: 'Think hard about this repo' });
    assert.equal(outputOf(response), 'the thinker timed out');
    const told = ((h.fake.requests.at(-1)?.body.messages as Json[]).at(-1)?.content as Json[])[0];
    assert.match(String(told?.content), /ran out of time \(1 s\)/);
  });

  test('approvals from parallel agents are each bound to their own change', async () => {
    const forTask = (word: string) => (r: RecordedRequest) =>
      as('executor')(r) && ownTask(`Write ${word}`)(r);
    const executorTurns = (word: string, file: string): FakeTurn[] => [
      {
        match: (r) => forTask(word)(r) && !JSON.stringify(r.body.messages).includes('tool_result'),
        ...call(`w-${word}`, 'write_file', { path: file, content: `${word}\n` }),
        firstByteDelayMs: 100,
      },
      { match: forTask(word), ...call(`d-${word}`, 'task_completed', { result: `${word} handled` }) },
    ];
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agents', {
            agents: [
              { agentId: 'executor', task: 'Write alpha' },
              { agentId: 'executor', task: 'Write beta' },
            ],
          }),
        ),
        ...executorTurns('alpha', 'alpha.txt'),
        ...executorTurns('beta', 'beta.txt'),
        turn('orchestrator', call('o2', 'task_completed', { result: 'both handled' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    const seen: Json[] = [];
    h.client.handle('approve', async (params) => {
      seen.push(params);
      // Answer out of order: the later request first.
      await new Promise((resolve) => setTimeout(resolve, params.path === 'alpha.txt' ? 150 : 0));
      return { decision: params.path === 'alpha.txt' ? 'allow' : 'reject' };
    });
    const { response } = await h.prompt({ text: 'Write the two files for this project' });
    assert.equal(outputOf(response), 'both handled');
    assert.equal(readFileSync(join(h.workspace, 'alpha.txt'), 'utf8'), 'alpha\n');
    assert.equal(existsSync(join(h.workspace, 'beta.txt')), false);
    const byPath = Object.fromEntries(seen.map((p) => [p.path, p]));
    assert.match(String((byPath['alpha.txt']?.diff as Json).unifiedDiff), /\+alpha/);
    assert.match(String((byPath['beta.txt']?.diff as Json).unifiedDiff), /\+beta/);
    assert.notEqual(byPath['alpha.txt']?.agentId, byPath['beta.txt']?.agentId);
  });
});
