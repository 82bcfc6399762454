/**
 * The scenarios behind the spec's example exchanges that involve a model: the workspace they
 * start from, what the fake model answers, and what the client does. scripts/record-examples.ts
 * runs them against the real server to write the examples and their recordings; the replay test
 * re-executes the recordings from the same workspace.
 */
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import type { ExchangeClient, Json } from './exchange.ts';

export interface ScenarioContext {
  client: ExchangeClient;
  /** A `{"note"}` line at this point of the example. */
  note: (text: string) => void;
  /** Sends a request and waits for its response; the next client request id. */
  call: (method: string, params?: unknown) => Promise<Json>;
  nextId: () => number;
  /** Keeps the session file as it is now as the recording (before a `session/delete`). */
  keepRecording: () => void;
}

export interface Scenario {
  /** The example's file name, without `.jsonl`. */
  name: string;
  /** The workspace before the exchange: path → content. */
  files: Record<string, string>;
  turns: FakeTurn[];
  /** The first client request id of the example (after the handshake's). */
  firstId: number;
  /** What the client declares in `initialize`; default: it answers `approve` and `ask`. */
  capabilities?: Json;
  run(context: ScenarioContext): Promise<void>;
}

const systemText = (request: RecordedRequest) =>
  (request.body as { system: Array<{ text: string }> }).system.map((block) => block.text).join('\n');
const as =
  (role: string): FakeTurn['match'] =>
  (request) =>
    systemText(request).includes(`You are the ${role}`);
const tool = (id: string, name: string, args: unknown) => ({ id, name, args, chunks: 1 });

const GREET = "export function greet(name: string) {\n  return 'Hello ' + name;\n}\n";

const prompt: Scenario = {
  name: 'prompt',
  files: { 'src/greet.ts': GREET },
  firstId: 2,
  turns: [
    {
      match: as('orchestrator'),
      text: ['I will have the executor make the change.'],
      toolCalls: [
        tool('toolu_01', 'spawn_agent', {
          agentId: 'executor',
          task: "In src/greet.ts, make greet() return `Hello, ${name}!` with a template string instead of 'Hello ' + name.",
        }),
      ],
      usage: { inputTokens: 1840, outputTokens: 96, cacheReadTokens: 1024 },
    },
    {
      match: as('executor'),
      toolCalls: [tool('toolu_02', 'read_file', { path: 'src/greet.ts' })],
      usage: { inputTokens: 2210, outputTokens: 40 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_03', 'str_replace', {
          path: 'src/greet.ts',
          oldStr: "  return 'Hello ' + name;",
          newStr: '  return `Hello, ${name}!`;',
        }),
      ],
      usage: { inputTokens: 2390, outputTokens: 85 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_04', 'task_completed', { result: 'greet() in src/greet.ts now uses a template string.' }),
      ],
      usage: { inputTokens: 2520, outputTokens: 30 },
    },
    {
      match: as('orchestrator'),
      toolCalls: [
        tool('toolu_05', 'ask_user', {
          prompt: 'Also update the tests?',
          options: [
            { label: 'Yes', value: 'yes' },
            { label: 'No', value: 'no' },
          ],
        }),
      ],
      usage: { inputTokens: 1990, outputTokens: 45, cacheReadTokens: 1024 },
    },
    {
      match: as('orchestrator'),
      text: ['Done: greet() now uses a template string.'],
      usage: { inputTokens: 2050, outputTokens: 12, cacheReadTokens: 1024 },
    },
    // The second prompt of the session, whichever agent its route gives it.
    {
      text: ['src/greet.ts holds greet(); the executor changed it in this session.'],
      usage: { inputTokens: 2120, outputTokens: 18, cacheReadTokens: 1024 },
    },
  ],
  async run({ client, note, call }) {
    client.handle('approve', (_params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { decision: 'allow' },
    }));
    client.handle('ask', (_params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { answer: 'no' },
    }));
    note(
      "After the handshake (see lifecycle), a `prompt` starts a run. The classifier picks a route (the `Route:` status); the orchestrator does not edit files itself but delegates to an executor, whose phases come under a `section` (its `agentId` names the spawned agent, `parentAgentId` the orchestrator). Every `tool_call` has its `tool_result` with the `output` the model saw. The executor's edit needs the user's approval, and the orchestrator asks a question; server-to-client requests number their ids on their own, independently of the client's (a client accepts any id, 0 included). The `prompt` is answered last, after the `complete` phase.",
    );
    const first = await call('prompt', { text: 'Make greet() use a template string' });
    note(
      'A second `prompt` naming the `sessionId` continues the session: a new run, and `seq` goes on from where the first run stopped. `sessionUsage` and `sessionCostUsd` add up both runs.',
    );
    await call('prompt', {
      text: 'Where is greet() defined?',
      sessionId: (first.result as Json).sessionId,
    });
  },
};

const cancel: Scenario = {
  name: 'cancel',
  files: { 'package.json': '{ "scripts": { "test": "node --test" } }\n' },
  firstId: 2,
  turns: [
    {
      match: as('executor'),
      toolCalls: [tool('toolu_01', 'run_command', { command: 'npm test' })],
      usage: { inputTokens: 950, outputTokens: 40 },
    },
  ],
  async run({ client, note, nextId }) {
    const id = nextId();
    // The user cancels while the command waits for approval.
    client.handle('approve', () => ({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } }));
    client.handle('$/cancelRequest', (params) => ({
      jsonrpc: '2.0',
      id: params.id,
      error: { code: -32800, message: 'approve was cancelled', data: { retryable: true } },
    }));
    note(
      'The client cancels a running `prompt` with `$/cancelRequest` (here while the command the executor — asked for by `agent` — wants to run awaits approval). The server cancels its pending `approve` the same way, aborts the run down to the model stream, sends the `complete` phase, and answers the `prompt` with status `cancelled` (other requests answer RequestCancelled).',
    );
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'prompt',
      params: { text: 'Run the whole test suite', agent: 'executor' },
    });
    await client.next((m) => m.id === id && m.method === undefined);
  },
};

const sessions: Scenario = {
  name: 'sessions',
  files: { 'README.md': '# Demo\n\nRun `npm test`.\n', 'test/greet.test.ts': "import './greet.ts';\n" },
  firstId: 2,
  turns: [
    { text: ['The tests live in test/.'], usage: { inputTokens: 19, outputTokens: 6 } },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_01', 'write_file', {
          path: 'src/util.ts',
          content: 'export const twice = (n: number) => 2 * n;\n',
        }),
      ],
      usage: { inputTokens: 410, outputTokens: 52 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_02', 'str_replace', {
          path: 'README.md',
          oldStr: 'Run `npm test`.',
          newStr: 'Run `npm test`. Helpers are in src/util.ts.',
        }),
      ],
      usage: { inputTokens: 530, outputTokens: 48 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_03', 'run_command', { command: "printf 'See docs/ for more.\\n' >> README.md" }),
      ],
      usage: { inputTokens: 640, outputTokens: 40 },
    },
    {
      match: as('executor'),
      text: ['Added src/util.ts and mentioned it in the README, with a pointer to docs/.'],
      usage: { inputTokens: 760, outputTokens: 18 },
    },
    {
      text: [
        'The user asked where the tests are (test/), then had src/util.ts added and mentioned in README.md.',
      ],
      usage: { inputTokens: 700, outputTokens: 30 },
    },
  ],
  async run({ client, note, call, keepRecording }) {
    // The run's changes are allowed; undoing a file changed since is declined.
    client.handle('approve', (params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { decision: params.toolName === 'session/undo' ? 'reject' : 'allow' },
    }));
    note(
      'Every session is saved as it runs. A first prompt starts one; a second, with its `sessionId` and the agent `executor`, writes a file, edits another and runs a command that appends to it (each approved).',
    );
    const first = await call('prompt', { text: 'Where are the tests?' });
    const sessionId = (first.result as Json).sessionId;
    await call('prompt', {
      text: 'Add a util module and mention it in the README',
      sessionId,
      agent: 'executor',
    });
    note(
      'The client lists the saved sessions of the workspace, resumes one and catches up on the phases after seq 1 (sent again before the answer), and exports it as Markdown.',
    );
    await call('session/list', { limit: 20 });
    await call('session/resume', { sessionId, afterSeq: 1 });
    await call('session/export', { sessionId, format: 'markdown' });
    note(
      '`session/rename` names the session (§10.12): `session/list` and `session/resume` show the name, and `session/resume` takes it in place of the id, answering with the id.',
    );
    await call('session/rename', { sessionId, name: 'readme-util' });
    await call('session/resume', { sessionId: 'readme-util' });
    note(
      "`session/compact` has the model summarise everything before the last `keepTurns` user turns, which stay word for word; the summary's tokens and cost count towards the session.",
    );
    await call('session/compact', { sessionId, keepTurns: 1 });
    note(
      "`session/undo` undoes the last run, newest change first. README.md is not as the edit left it (the command appended to it, as a user's own edit would), so the server asks first: an `approve` with `toolName` `session/undo` and the diff from the file as it is to what the undo would write. The user declines and README.md stays as it is; `src/util.ts` is untouched since, so it is deleted without a question. Then the session is deleted, and resuming it fails.",
    );
    await call('session/undo', { sessionId, scope: 'run' });
    keepRecording();
    await call('session/delete', { sessionId });
    await call('session/resume', { sessionId });
    note(
      "`session/new` starts an empty session and saves it before its first prompt, for a client that names a conversation first (an editor's new thread); a `prompt` with its `sessionId` continues it.",
    );
    await call('session/new');
  },
};

const SECURITY_AGENT = {
  id: 'security_reviewer',
  name: 'Security reviewer',
  description: 'Reviews changes for security problems.',
  systemPrompt: 'You review code changes for security problems and report what you find.',
  toolNames: ['read_file', 'grep_search', 'task_completed'],
};

const agents: Scenario = {
  name: 'agents',
  files: {
    '.agents/security.json': `${JSON.stringify(SECURITY_AGENT, null, 2)}\n`,
    '.agents/broken.json': `${JSON.stringify({ ...SECURITY_AGENT, id: 'cleaner', name: 'Cleaner', toolNames: ['read_file', 'rm_rf'] }, null, 2)}\n`,
  },
  firstId: 2,
  turns: [],
  async run({ note, call }) {
    note(
      'A client lists the agents the swarm can use: the built-in ones, then the custom agents of the workspace (`.agents/*.json`). A custom agent file with a mistake is skipped and reported; the others load.',
    );
    await call('agents/list', {});
  },
};

const models: Scenario = {
  name: 'models',
  files: {},
  firstId: 2,
  turns: [],
  async run({ note, call }) {
    note(
      "After the handshake, a client lists the models and switches the connection's default. Only Anthropic has a key here; a model whose provider has no key is refused with ModelUnavailable, saying what to set.",
    );
    await call('model/list', {});
    await call('model/set', { model: 'anthropic/claude-haiku-5-5' });
    await call('model/set', { model: 'groq/llama-3.3-70b-versatile' });
    note(
      "`config/setup` is a client's first-run setup: the user's choice of provider, key and model is saved in the config file (mode 0600) and used from the next request. The key appears in no message the server sends.",
    );
    await call('config/setup', {
      provider: 'groq',
      apiKey: 'gsk_example_not_a_key',
      model: 'groq/llama-3.3-70b-versatile',
    });
  },
};

const UNSAVED = `${GREET}// TODO: greet in French too\n`;

const editor: Scenario = {
  name: 'editor',
  files: { 'src/greet.ts': GREET },
  firstId: 2,
  capabilities: { approve: true, ask: true, fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  turns: [
    {
      match: as('executor'),
      toolCalls: [tool('toolu_01', 'read_file', { path: 'src/greet.ts' })],
      usage: { inputTokens: 900, outputTokens: 30 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_02', 'str_replace', {
          path: 'src/greet.ts',
          oldStr: "  return 'Hello ' + name;",
          newStr: '  return `Hello, ${name}!`;',
        }),
      ],
      usage: { inputTokens: 1010, outputTokens: 70 },
    },
    {
      match: as('executor'),
      toolCalls: [tool('toolu_03', 'run_command', { command: 'npm test' })],
      usage: { inputTokens: 1150, outputTokens: 25 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_04', 'task_completed', { result: 'greet() uses a template string; the tests pass.' }),
      ],
      usage: { inputTokens: 1260, outputTokens: 30 },
    },
  ],
  async run({ client, note, call }) {
    client.handle('fs/readTextFile', (_params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { text: UNSAVED },
    }));
    client.handle('approve', (_params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: { decision: 'allow' },
    }));
    client.handle('fs/writeTextFile', (_params, message) => ({ jsonrpc: '2.0', id: message.id, result: {} }));
    client.handle('terminal/run', (_params, message) => ({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        output: '> demo@1.0.0 test\n> node --test\n\n✔ greet (0.6ms)\nℹ tests 1\nℹ pass 1\n',
        truncated: false,
        exitCode: 0,
        signal: null,
        timedOut: false,
      },
    }));
    note(
      "An editor client declared `capabilities.fs` and `capabilities.terminal` in `initialize` (§7.5). The executor's `read_file` becomes `fs/readTextFile`, answered with the buffer's text, which has a line the user has not saved: the model reads that. The edit's diff is against the buffer, and after the user allows it the text goes back through `fs/writeTextFile`; this client answered without saving, so the server wrote the disk itself. The approved command runs through `terminal/run`: `unsetEnv` names the variables the server keeps from commands (its own settings and provider keys), and the command's output comes back as the client's terminal showed it.",
    );
    await call('prompt', { text: 'Use a template string in greet() and run the tests', agent: 'executor' });
  },
};

/** A Claude Code transcript of one prompt: a Read (Santra has read_file) and an MCP tool (it has none). */
const CLAUDE_TRANSCRIPT = [
  {
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    sessionId: 'c1a2b3c4-0000-4000-8000-000000000001',
    timestamp: '2026-01-20T11:57:17.790Z',
    message: { role: 'user', content: 'Which issue asked for greet()?' },
  },
  {
    type: 'assistant',
    uuid: 'a1',
    parentUuid: 'u1',
    sessionId: 'c1a2b3c4-0000-4000-8000-000000000001',
    timestamp: '2026-01-20T11:57:20.911Z',
    message: {
      id: 'msg_01',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'Read',
          input: { file_path: 'src/greet.ts' },
        },
        { type: 'tool_use', id: 'toolu_02', name: 'mcp__github__search_issues', input: { q: 'greet' } },
      ],
      usage: {
        input_tokens: 12,
        output_tokens: 40,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
  },
  {
    type: 'user',
    uuid: 'r1',
    parentUuid: 'a1',
    sessionId: 'c1a2b3c4-0000-4000-8000-000000000001',
    timestamp: '2026-01-20T11:57:21.034Z',
    message: {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_01',
          content: '     1→export function greet(name: string) {',
        },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: '#12 Add greet()' },
      ],
    },
  },
  {
    type: 'assistant',
    uuid: 'a2',
    parentUuid: 'r1',
    sessionId: 'c1a2b3c4-0000-4000-8000-000000000001',
    timestamp: '2026-01-20T11:57:23.014Z',
    message: {
      id: 'msg_02',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Issue #12 asked for it.' }],
      usage: {
        input_tokens: 30,
        output_tokens: 9,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
  },
]
  .map((record) => `${JSON.stringify(record)}\n`)
  .join('');

const importing: Scenario = {
  name: 'import',
  files: {},
  firstId: 2,
  turns: [],
  async run({ note, call }) {
    note(
      "`session/import` makes another agent's transcript a session of this workspace (§10.10): here a Claude Code transcript, sent as its text. Its Read is imported as a call of `read_file` (Santra's match), its MCP tool, which Santra has no match for, as bounded text. The session costs nothing here; `imported.usage` holds the tokens Claude Code recorded.",
    );
    await call('session/import', { format: 'claude', content: CLAUDE_TRANSCRIPT, name: 'c1a2b3c4.jsonl' });
    note('Importing the same transcript again gives the same session, and writes nothing.');
    await call('session/import', { format: 'claude', content: CLAUDE_TRANSCRIPT, name: 'c1a2b3c4.jsonl' });
    note('A transcript with a damaged line is refused whole, naming the line: nothing is imported.');
    await call('session/import', {
      format: 'claude',
      content: CLAUDE_TRANSCRIPT.replace('"uuid":"r1"', '"uuid":"r1'),
      name: 'c1a2b3c4.jsonl',
    });
  },
};

const GREETINGS =
  "export function greet(name: string) {\n  return 'Hello ' + name;\n}\n\n" +
  '// Greetings are shown in the status line.\n// Keep them short.\n// One line each.\n\n' +
  "export function farewell(name: string) {\n  return 'Bye ' + name;\n}\n";

const approveEdit: Scenario = {
  name: 'approve-edit',
  files: { 'src/greet.ts': GREETINGS },
  firstId: 2,
  turns: [
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_01', 'write_file', {
          path: 'src/greet.ts',
          content: GREETINGS.replace("'Hello ' + name", '`Hello, ${name}!`').replace(
            "'Bye ' + name",
            '`Goodbye, ${name}.`',
          ),
        }),
      ],
      usage: { inputTokens: 900, outputTokens: 120 },
    },
    {
      match: as('executor'),
      toolCalls: [tool('toolu_02', 'run_command', { command: 'echo greet > checked.txt' })],
      usage: { inputTokens: 1200, outputTokens: 25 },
    },
    {
      match: as('executor'),
      toolCalls: [
        tool('toolu_03', 'task_completed', {
          result: 'greet() uses a template string; farewell() is unchanged.',
        }),
      ],
      usage: { inputTokens: 1350, outputTokens: 30 },
    },
  ],
  async run({ client, note, call }) {
    let asked = 0;
    client.handle('approve', (params, message) => {
      asked++;
      const hunks = ((params.diff as Json | undefined)?.hunks ?? []) as Json[];
      const result =
        asked === 1
          ? { decision: 'allow', hunks: [hunks[0]?.id] }
          : asked === 2
            ? { decision: 'allow', command: 'echo greet-and-farewell > checked.txt' }
            : { decision: 'allow' };
      return { jsonrpc: '2.0', id: message.id, result };
    });
    note(
      "Approvals that edit (§7.3.2). The executor's change has two hunks, each with an `id`; the user allows only the first (`hunks`), so only greet() changes, and the model's next request says which hunk was applied and which was not, with their text. The executor then proposes a command; the user edits it before allowing (`command`). The edited command is a new command: the server checks it again and, since it is not read-only, asks again with the person's version before running it; the model is told what ran.",
    );
    await call('prompt', { text: 'Use template strings in src/greet.ts', agent: 'executor' });
  },
};

/** A project's MCP server (§7.7): a small stdio program answering `initialize`, `tools/list` and `tools/call`. */
const TICKETS_SERVER = `import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const getTicket = {
  name: 'get_ticket',
  description: 'Reads a ticket by its number.',
  inputSchema: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
};
createInterface({ input: process.stdin })
  .on('line', (line) => {
    const { id, method, params } = JSON.parse(line);
    if (id === undefined) return;
    if (method === 'initialize')
      send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'tickets', version: '1.0.0' } } });
    else if (method === 'tools/list') send({ id, result: { tools: [getTicket] } });
    else if (method === 'tools/call') send({ id, result: { content: [{ type: 'text', text: '#' + params.arguments.number + ': greet() should use a template string' }] } });
    else send({ id, error: { code: -32601, message: 'no method ' + method } });
  })
  .on('close', () => process.exit(0));
`;

const mcp: Scenario = {
  name: 'mcp',
  files: {
    '.mcp.json': `${JSON.stringify({ mcpServers: { tickets: { command: 'node', args: ['tools/mcp-tickets.mjs'], env: { TICKETS_TOKEN: '${TICKETS_TOKEN}' } } } }, null, 2)}\n`,
    'tools/mcp-tickets.mjs': TICKETS_SERVER,
  },
  turns: [],
  firstId: 2,
  // A client with no person to ask (like `santra -p`): a project's server is never trusted.
  capabilities: { approve: false, ask: false },
  async run({ note, call }) {
    note(
      'MCP servers (§7.7). The workspace\'s `.mcp.json` defines a server. This client declared no `capabilities.approve`, so no person can trust that definition: the server is not started and `mcp/list` says why (`untrusted`). A client that can approve gets an `approve` of `kind: "trust"` once it has sent `initialized`, always `protected`, showing the definition as the file has it (`${TICKETS_TOKEN}` not expanded, so no secret is shown); once allowed, the server starts in the background and its tools (`mcp__tickets__get_ticket`) join the next prompt, each call asked with `kind: "mcp_tool"`.',
    );
    await call('mcp/list', {});
    note(
      "`mcp/logout` forgets a remote server's OAuth sign-in and disconnects it until a person signs in again. A local server keeps no sign-in: the request says so.",
    );
    await call('mcp/logout', { server: 'tickets' });
  },
};

const hooks: Scenario = {
  name: 'hooks',
  files: {
    '.santra/settings.json': `${JSON.stringify(
      {
        hooks: {
          PostToolUse: [
            {
              matcher: 'Edit|Write',
              hooks: [
                { type: 'command', command: 'npx prettier --write "$CLAUDE_PROJECT_DIR"', timeout: 60 },
              ],
            },
          ],
        },
      },
      null,
      2,
    )}\n`,
  },
  turns: [],
  firstId: 2,
  // A client with no person to ask: a project's hooks are never trusted, so they never run.
  capabilities: { approve: false, ask: false },
  async run({ note, call }) {
    note(
      'Hooks (§7.8.1) in Claude Code\'s schema. This project\'s `.santra/settings.json` defines a PostToolUse hook; a project\'s hooks run only once a person trusted that exact content (an `approve` of `kind: "trust"`, `subject: "hooks"`), and this client cannot approve, so `hooks/list` shows it `trusted: false`. Hooks in the user\'s own config run without asking.',
    );
    await call('hooks/list', {});
  },
};

const subscribing: Scenario = {
  name: 'subscribe',
  files: {},
  firstId: 2,
  turns: [{ text: ['The tests ', 'live in test/.'], usage: { inputTokens: 19, outputTokens: 6 } }],
  async run({ client, note, call, nextId }) {
    note(
      '`session/subscribe` (§10.11) is how a second client joins a session that runs in another server sharing the store (`santra attach`). Here one server shows the part it can alone: a run, then a subscription from seq 2, whose missed phases come first.',
    );
    const run = await call('prompt', { text: 'Where are the tests?', mode: 'simple_chat' });
    const sessionId = (run.result as Json).sessionId;
    const id = nextId();
    client.send({ jsonrpc: '2.0', id, method: 'session/subscribe', params: { sessionId, afterSeq: 2 } });
    await client.next((m) => m.method === 'phase' && (m.params as Json).type === 'complete');
    note(
      'The subscription stays open, carrying the phases of the next runs too, until the client ends it with `session/unsubscribe`; then `session/subscribe` is answered with what it sent (`lastSeq` to go on from later).',
    );
    // Both answers are awaited as they come: the subscription's may come first.
    const unsubscribe = nextId();
    client.send({ jsonrpc: '2.0', id: unsubscribe, method: 'session/unsubscribe', params: { sessionId } });
    await client.next((m) => m.id === unsubscribe && m.method === undefined);
    await client.next((m) => m.id === id && m.method === undefined);
  },
};

const rewinding: Scenario = {
  name: 'rewind',
  files: {},
  firstId: 2,
  turns: [
    { text: 'Use a template string.', usage: { inputTokens: 14, outputTokens: 5 } },
    { text: 'It prints "Hello, world".', usage: { inputTokens: 30, outputTokens: 7 } },
  ],
  async run({ call, note }) {
    note(
      '`session/prompts` and `session/rewind` (§10.13): two prompts, then back to just before the second. The result gives its text back for the client to put where the user types; the next prompt sends the model only what came before it.',
    );
    const first = await call('prompt', { text: 'How should greet() build its string?', mode: 'simple_chat' });
    const sessionId = (first.result as Json).sessionId;
    await call('prompt', { text: 'What does it print?', sessionId, mode: 'simple_chat' });
    const listed = await call('session/prompts', { sessionId });
    const second = ((listed.result as Json).prompts as Json[])[1] as Json;
    await call('session/rewind', { sessionId, runId: second.runId });
    note(
      '`session/event` (§10.14): an event for the idle session is shown as an `event` phase and saved in its conversation; the model reads it with the next prompt, framed as untrusted data.',
    );
    await call('session/event', {
      sessionId,
      text: 'CI: build 41 failed in test/greet.test.js',
      source: 'ci',
    });
    note(
      '`session/cancel` (§10.14) stops the run a session is running in this server, whoever started it: a turn an event started has no `prompt` of the client to cancel with `$/cancelRequest`. The session is idle here, so there is nothing to stop.',
    );
    await call('session/cancel', { sessionId });
    note(
      '`session/setMode` (§7.8) changes the permission mode at once: a run going on gates its later tool calls in it (Shift+Tab in the middle of a run); for an idle session, its next prompt runs in it.',
    );
    await call('session/setMode', { sessionId, permissionMode: 'acceptEdits' });
    note(
      "`session/close` (§10.15) says the client is done with the session — here its user began another (a TUI's `/clear`). It has run prompts in this server, so it ends here now: the server runs its SessionEnd hooks and stops offering it live. It stays saved; a later prompt with it begins it again.",
    );
    await call('session/close', { sessionId, reason: 'clear' });
  },
};

const RELEASE_NOTES_SKILL = [
  '---',
  'name: release-notes',
  "description: Writes release notes from the git log in the team's format. Use when asked for release notes.",
  '---',
  '',
  '# Release notes',
  '',
  '1. Run `git log --oneline $(git describe --tags --abbrev=0)..HEAD`.',
  '2. Group the changes under Added, Changed and Fixed, as in template.md.',
  '',
].join('\n');

const skillsAndMemory: Scenario = {
  name: 'skills',
  files: {
    '.santra/skills/release-notes/SKILL.md': RELEASE_NOTES_SKILL,
    '.santra/skills/release-notes/template.md': '## Added\n\n## Changed\n\n## Fixed\n',
    '.claude/skills/deploy/SKILL.md': '---\ndescription: Deploys the site.\n---\nRun make deploy.\n',
  },
  turns: [],
  firstId: 2,
  async run({ note, call }) {
    note(
      'Skills (§7.9): `skills/list` answers the skills of the user and of the project (`.santra/skills/`, `.claude/skills/`) in the Agent Skills format, each with where it comes from, and every SKILL.md that was skipped with what to fix. Only names and descriptions reach the model; it loads a skill with the `load_skill` tool when a task calls for it.',
    );
    await call('skills/list', {});
    note(
      "Memory (§7.10): `memory/add` adds a fact to the project's memory file, secrets redacted before anything is written (here an AWS key id in its published format); `memory/show` answers both files and where they are. The files reach the model on each prompt's message, after the cached prefix.",
    );
    await call('memory/add', {
      text: 'Release builds run make release; the CI key AKIAIOSFODNN7EXAMPLE is in the vault',
    });
    await call('memory/show', {});
  },
};

export const SCENARIOS: Scenario[] = [
  prompt,
  cancel,
  sessions,
  agents,
  models,
  editor,
  importing,
  approveEdit,
  mcp,
  hooks,
  skillsAndMemory,
  subscribing,
  rewinding,
];
