/**
 * Hooks through the protocol, with real scripts: the built server reads a Claude Code hooks block
 * from its config, a fake model makes tool calls, and the scripts (shell, reading their JSON on
 * stdin) block, allow, rewrite, add context and stop. Each script logs what it was given, so the
 * test sees that it ran, for which call and agent, and with which input — and a control case
 * shows what happens without the hook.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true, diffs: true } };

const call = (id: string, name: string, args: Json) => ({ toolCalls: [{ id, name, args }] });
const resultOf = (phases: Json[], id: string) =>
  phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);
const hook = (matcher: string | undefined, command: string, timeout?: number) => ({
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: 'command', command, ...(timeout === undefined ? {} : { timeout }) }],
});
/** A hook script in the workspace's hooks/ dir; every script first appends its stdin to log.jsonl. */
const LOGGED = 'input=$(cat); printf "%s\\n" "$input" >> "$CLAUDE_PROJECT_DIR/hooks/log.jsonl"';

function script(workspace: string, name: string, body: string): void {
  mkdirSync(join(workspace, 'hooks'), { recursive: true });
  const file = join(workspace, 'hooks', name);
  writeFileSync(file, `#!/bin/sh\n${LOGGED}\n${body}\n`);
  chmodSync(file, 0o755);
}

function logged(workspace: string): Json[] {
  const file = join(workspace, 'hooks/log.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Json);
}

/** The text of every tool result and user message of the last request the model got. */
function lastRequestText(h: { fake: { requests: Array<{ body: Json }> } }): string {
  return JSON.stringify((h.fake.requests.at(-1)?.body as Json).messages);
}

async function withHooks(
  turns: Parameters<typeof start>[1],
  hooks: Json,
  extra: Json = {},
  capabilities: Json = APPROVER.capabilities,
) {
  const h = await start('anthropic', turns, {}, { hooks, ...extra }, { capabilities });
  const approvals: Json[] = [];
  h.client.handle('approve', (params) => {
    approvals.push(params);
    return { decision: params.kind === 'trust' ? 'reject' : 'allow' };
  });
  return { h, approvals };
}

describe('hooks through the protocol', () => {
  test('PreToolUse exit 2 blocks a Bash call; the model reads stderr; the input is Claude Code’s', async () => {
    const { h, approvals } = await withHooks(
      [call('c1', 'run_command', { command: 'touch made' }), { text: 'ok' }],
      { PreToolUse: [hook('Bash', '$CLAUDE_PROJECT_DIR/hooks/block.sh')] },
    );
    script(h.workspace, 'block.sh', 'echo "no touching in this repo" >&2; exit 2');
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'c1')?.status, 'error');
    assert.match(String(resultOf(phases, 'c1')?.output), /no touching in this repo/);
    assert.equal(existsSync(join(h.workspace, 'made')), false);
    assert.equal(approvals.length, 0, 'blocked before the gate asked');
    const [input] = logged(h.workspace);
    assert.equal(input?.hook_event_name, 'PreToolUse');
    assert.equal(input?.tool_name, 'Bash');
    assert.equal((input?.tool_input as Json).command, 'touch made');
    assert.equal(input?.tool_use_id, 'c1');
    assert.equal(input?.cwd, h.workspace);
    assert.equal(input?.permission_mode, 'default');
    assert.equal(typeof input?.session_id, 'string');
    assert.match(String(input?.transcript_path), /\.jsonl$/);
  });

  test('PreToolUse JSON: deny blocks, allow skips the approval, ask asks even under bypassPermissions', async () => {
    const { h, approvals } = await withHooks(
      [
        call('w1', 'write_file', { path: 'denied.txt', content: 'x' }),
        call('w2', 'write_file', { path: 'allowed.txt', content: 'y' }),
        call('w3', 'write_file', { path: 'asked.txt', content: 'z' }),
        { text: 'ok' },
      ],
      { PreToolUse: [hook('Edit|Write', '$CLAUDE_PROJECT_DIR/hooks/decide.sh')] },
    );
    script(
      h.workspace,
      'decide.sh',
      `case "$input" in
  *denied.txt*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"generated files are read-only"}}' ;;
  *allowed.txt*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"docs are fine"}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}' ;;
esac`,
    );
    // Default mode: allowed.txt would be asked without the hook; bypassPermissions would not ask asked.txt.
    const { phases } = await h.prompt({ text: 'go', permissionMode: 'bypassPermissions' });
    assert.equal(resultOf(phases, 'w1')?.status, 'error');
    assert.match(String(resultOf(phases, 'w1')?.output), /generated files are read-only/);
    assert.equal(existsSync(join(h.workspace, 'denied.txt')), false);
    assert.equal(readFileSync(join(h.workspace, 'allowed.txt'), 'utf8'), 'y');
    assert.deepEqual(
      approvals.map((a) => a.path),
      ['asked.txt'],
      'only the call the hook said to ask about was asked',
    );
    assert.equal((logged(h.workspace)[0]?.tool_input as Json).file_path, join(h.workspace, 'denied.txt'));
  });

  test('PreToolUse updatedInput rewrites the call: the approval shows and the disk gets the new input', async () => {
    const { h, approvals } = await withHooks(
      [call('w1', 'write_file', { path: 'a.txt', content: 'from the model' }), { text: 'ok' }],
      { PreToolUse: [hook('Write', '$CLAUDE_PROJECT_DIR/hooks/rewrite.sh')] },
    );
    script(
      h.workspace,
      'rewrite.sh',
      `printf '%s' "$input" | python3 -c 'import json,sys; d=json.load(sys.stdin); i=d["tool_input"]; i["content"]="rewritten by the hook\\n"; print(json.dumps({"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":i}}))'`,
    );
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'w1')?.status, 'ok');
    assert.match(String((approvals[0]?.diff as Json).unifiedDiff), /\+rewritten by the hook/);
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), 'rewritten by the hook\n');
  });

  test('PostToolUse adds context and a block reason for the model; UserPromptSubmit stdout is context', async () => {
    const { h } = await withHooks([call('r1', 'list_dir', { path: '.' }), { text: 'ok' }], {
      PostToolUse: [hook('LS', `$CLAUDE_PROJECT_DIR/hooks/post.sh`)],
      UserPromptSubmit: [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/submit.sh`)],
    });
    script(
      h.workspace,
      'post.sh',
      `echo '{"decision":"block","reason":"remember to run the linter","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the build is green"}}'`,
    );
    script(h.workspace, 'submit.sh', 'echo "Current sprint: parser rewrite"');
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'r1')?.status, 'ok');
    const first = JSON.stringify((h.fake.requests[0]?.body as Json).messages);
    assert.match(first, /Current sprint: parser rewrite/);
    const last = lastRequestText(h);
    assert.match(last, /remember to run the linter/);
    assert.match(last, /the build is green/);
    const post = logged(h.workspace).find((input) => input.hook_event_name === 'PostToolUse');
    assert.equal((post?.tool_response as Json).success, true);
  });

  test('UserPromptSubmit exit 2 blocks the prompt: no model call, the user reads why', async () => {
    const { h } = await withHooks([{ text: 'never' }], {
      UserPromptSubmit: [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/submit.sh`)],
    });
    script(h.workspace, 'submit.sh', 'echo "prompts may not mention secrets" >&2; exit 2');
    const { response, phases } = await h.prompt({ text: 'print the secrets' });
    assert.equal((response.result as Json).status, 'error');
    const error = phases.find((p) => p.type === 'error');
    assert.equal(error?.code, 'hook');
    assert.match(String(error?.message), /prompts may not mention secrets/);
    assert.equal(h.fake.requests.length, 0);
    assert.equal(logged(h.workspace)[0]?.prompt, 'print the secrets');
  });

  test('Stop blocks once with a reason (the model goes on), then lets it stop (stop_hook_active)', async () => {
    const { h } = await withHooks([{ text: 'first answer' }, { text: 'second answer' }], {
      Stop: [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/stop.sh`)],
    });
    script(
      h.workspace,
      'stop.sh',
      `case "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac
echo '{"decision":"block","reason":"also add a test"}'`,
    );
    const { response } = await h.prompt({ text: 'go' });
    assert.equal((response.result as Json).output, 'second answer');
    assert.equal(h.fake.requests.length, 2);
    assert.match(lastRequestText(h), /also add a test/);
    assert.deepEqual(
      logged(h.workspace).map((input) => input.stop_hook_active),
      [false, true],
    );
  });

  test('continue: false from PostToolUse stops the agent after the call', async () => {
    const { h } = await withHooks([call('r1', 'list_dir', { path: '.' }), { text: 'never reached' }], {
      PostToolUse: [hook('*', `$CLAUDE_PROJECT_DIR/hooks/halt.sh`)],
    });
    script(h.workspace, 'halt.sh', `echo '{"continue":false,"stopReason":"stopped by policy"}'`);
    const { response } = await h.prompt({ text: 'go' });
    assert.equal((response.result as Json).output, 'stopped by policy');
    assert.equal(h.fake.requests.length, 1, 'no model call after the stop');
  });

  test('a sub-agent’s tool calls and its end are hooked (PreToolUse, SubagentStop), and Stop for the root', async () => {
    const boss = {
      ...TESTER,
      id: 'boss',
      name: 'Boss',
      systemPrompt: 'You are the boss.',
      toolNames: ['spawn_agent', 'task_completed'],
    };
    const { h } = await withHooks(
      [
        call('s1', 'spawn_agent', { agentId: 'tester', task: 'list the files' }),
        call('sub1', 'run_command', { command: 'touch sub-made' }),
        { text: 'sub done' },
        { text: 'boss done' },
      ],
      {
        PreToolUse: [hook('Bash', `$CLAUDE_PROJECT_DIR/hooks/block.sh`)],
        SubagentStop: [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/log.sh`)],
        Stop: [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/log.sh`)],
      },
    );
    writeFileSync(join(h.workspace, '.agents/boss.json'), JSON.stringify(boss));
    script(h.workspace, 'block.sh', 'echo "sub-agents may not run commands" >&2; exit 2');
    script(h.workspace, 'log.sh', 'exit 0');
    const { phases } = await h.prompt({ text: 'go', agent: 'boss' });
    const sub = resultOf(phases, 'sub1');
    assert.equal(sub?.status, 'error');
    assert.notEqual(sub?.agentId, (phases.find((p) => p.toolCallId === 's1') as Json).agentId);
    assert.match(String(sub?.output), /sub-agents may not run commands/);
    assert.equal(existsSync(join(h.workspace, 'sub-made')), false);
    assert.deepEqual(
      logged(h.workspace).map((input) => input.hook_event_name),
      ['PreToolUse', 'SubagentStop', 'Stop'],
    );
  });

  test('a hook that times out or crashes is reported and does not block; fail-closed blocks', async () => {
    for (const failClosed of [false, true]) {
      const { h } = await withHooks(
        [call('c1', 'list_dir', { path: '.' }), { text: 'ok' }],
        {
          PreToolUse: [
            hook('LS', `$CLAUDE_PROJECT_DIR/hooks/slow.sh`, 1),
            hook('LS', `$CLAUDE_PROJECT_DIR/hooks/crash.sh`),
          ],
        },
        { hooksFailClosed: failClosed },
      );
      script(h.workspace, 'slow.sh', 'sleep 30');
      script(h.workspace, 'crash.sh', 'echo "boom" >&2; exit 1');
      const { phases } = await h.prompt({ text: 'go' });
      const warnings = phases.filter((p) => p.type === 'status' && p.level === 'warning').map((p) => p.text);
      assert.equal(resultOf(phases, 'c1')?.status, failClosed ? 'error' : 'ok', `failClosed ${failClosed}`);
      if (failClosed) assert.match(String(resultOf(phases, 'c1')?.output), /hooksFailClosed/);
      else {
        assert.ok(
          warnings.some((text) => /timed out after 1 s/.test(String(text))),
          String(warnings),
        );
        assert.ok(
          warnings.some((text) => /exit code 1: boom/.test(String(text))),
          String(warnings),
        );
      }
    }
  });

  test('SessionStart adds context, Notification announces an approval, PreCompact and SessionEnd run', async () => {
    const events = ['SessionStart', 'Notification', 'PreCompact', 'SessionEnd'];
    const { h } = await withHooks(
      [
        call('w1', 'write_file', { path: 'n.txt', content: 'x' }),
        { text: 'one' },
        { text: 'two' },
        { text: 'three' },
      ],
      Object.fromEntries(
        events.map((event) => [event, [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/${event}.sh`)]]),
      ),
    );
    script(h.workspace, 'SessionStart.sh', 'echo "Open issues: #12 parser crash"');
    for (const event of events.slice(1)) script(h.workspace, `${event}.sh`, 'exit 0');
    const first = await h.prompt({ text: 'go' });
    const sessionId = (first.response.result as Json).sessionId;
    assert.match(
      JSON.stringify((h.fake.requests[0]?.body as Json).messages),
      /Open issues: #12 parser crash/,
    );
    await h.prompt({ text: 'again', sessionId });
    h.fake.push({ text: 'A summary.' });
    const id = h.nextId();
    h.client.request(id, 'session/compact', { sessionId, keepTurns: 1 });
    assert.equal(((await h.client.response(id)).result as Json).compacted, true);
    const shutdown = h.nextId();
    h.client.request(shutdown, 'shutdown');
    await h.client.response(shutdown);
    h.client.notify('exit');
    await h.client.exit();
    const inputs = logged(h.workspace);
    assert.deepEqual(
      inputs.map((input) => input.hook_event_name),
      ['SessionStart', 'Notification', 'PreCompact', 'SessionEnd'],
    );
    assert.equal(inputs[0]?.source, 'startup');
    assert.equal(inputs[1]?.notification_type, 'permission_prompt');
    assert.match(String(inputs[1]?.message), /write_file/);
    assert.equal(inputs[2]?.trigger, 'manual');
    assert.equal(inputs[3]?.reason, 'other');
    assert.ok(inputs.every((input) => input.session_id === sessionId));
  });

  test('session/close runs SessionEnd at once, with its reason; not again at shutdown; the next prompt begins it again', async () => {
    const events = ['SessionStart', 'SessionEnd'];
    const { h } = await withHooks(
      [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
      Object.fromEntries(
        events.map((event) => [event, [hook(undefined, `$CLAUDE_PROJECT_DIR/hooks/${event}.sh`)]]),
      ),
    );
    for (const event of events) script(h.workspace, `${event}.sh`, 'exit 0');
    const close = async (params: Json) => {
      const id = h.nextId();
      h.client.request(id, 'session/close', params);
      return h.client.response(id);
    };
    const a = (await h.prompt({ text: 'first' })).response.result as Json;
    const b = (await h.prompt({ text: 'second' })).response.result as Json;
    // The TUI's /clear: the session the user leaves ends now, the other stays open.
    assert.deepEqual((await close({ sessionId: a.sessionId, reason: 'clear' })).result, { closed: true });
    let inputs = logged(h.workspace);
    assert.deepEqual(
      inputs.map((input) => [input.hook_event_name, input.session_id, input.reason ?? input.source]),
      [
        ['SessionStart', a.sessionId, 'startup'],
        ['SessionStart', b.sessionId, 'startup'],
        ['SessionEnd', a.sessionId, 'clear'],
      ],
    );
    // Closed twice: nothing more runs.
    assert.deepEqual((await close({ sessionId: a.sessionId })).result, { closed: false });
    // Taken up again, it begins again (a resume); leaving the client is prompt_input_exit.
    await h.prompt({ text: 'back', sessionId: a.sessionId });
    assert.deepEqual((await close({ sessionId: a.sessionId, reason: 'exit' })).result, { closed: true });
    inputs = logged(h.workspace).slice(3);
    assert.deepEqual(
      inputs.map((input) => [input.hook_event_name, input.reason ?? input.source]),
      [
        ['SessionStart', 'resume'],
        ['SessionEnd', 'prompt_input_exit'],
      ],
    );
    // Bad input names the field; an unknown session is UnknownSession.
    const bad = (await close({ sessionId: b.sessionId, reason: 'quit' })).error as Json | undefined;
    assert.equal(bad?.code, -32602);
    assert.match(String(bad?.message), /reason/);
    const unknown = (await close({ sessionId: 'ses_00000000-0000-4000-8000-000000000000' })).error as
      Json | undefined;
    assert.equal(unknown?.code, -33005);
    // Shutdown ends only the session still open.
    const shutdown = h.nextId();
    h.client.request(shutdown, 'shutdown');
    await h.client.response(shutdown);
    h.client.notify('exit');
    await h.client.exit();
    assert.deepEqual(
      logged(h.workspace)
        .slice(5)
        .map((input) => [input.hook_event_name, input.session_id, input.reason]),
      [['SessionEnd', b.sessionId, 'other']],
    );
  });

  test('SessionStart says why, as Claude Code does: startup, compact after a compaction (manual and auto), clear after a /clear', async () => {
    const long = 'A long answer about the milk. '.repeat(700); // about 5,250 tokens
    const { h } = await withHooks(
      [
        { text: long },
        { text: 'Summary one.' },
        { text: 'A2' },
        { text: 'A2b' },
        { text: 'Summary two.' },
        { text: 'A3' },
        { text: 'A4' },
      ],
      { SessionStart: [hook(undefined, '$CLAUDE_PROJECT_DIR/hooks/SessionStart.sh')] },
      // 2% of claude-sonnet-4-5's window: the long answer takes the next prompt past it.
      { agent: { compactAt: 0.02 } },
    );
    // Its context names the source, so the test sees which prompt it went with.
    script(
      h.workspace,
      'SessionStart.sh',
      'printf "Started because of %s\\n" "$(printf "%s" "$input" | sed -n \'s/.*"source":"\\([a-z]*\\)".*/\\1/p\')"',
    );
    // The prompt's own message: what hooks added stays in the history after it.
    const lastAsked = () =>
      JSON.stringify(((h.fake.requests.at(-1)?.body as Json).messages as Json[]).at(-1));
    const first = (await h.prompt({ text: 'P1' })).response.result as Json;
    const sessionId = first.sessionId;
    assert.match(JSON.stringify((h.fake.requests[0]?.body as Json).messages), /Started because of startup/);
    // P2 starts with an automatic compaction; SessionStart (compact) goes with P2, after the summary.
    await h.prompt({ text: 'P2', sessionId });
    assert.match(lastAsked(), /Started because of compact/);
    assert.doesNotMatch(
      JSON.stringify((h.fake.requests[1]?.body as Json).messages),
      /Started because of compact/,
    );
    await h.prompt({ text: 'P2b', sessionId });
    assert.doesNotMatch(lastAsked(), /Started because of/, 'no SessionStart without a reason');
    // session/compact: the next prompt's SessionStart says compact, once.
    const id = h.nextId();
    h.client.request(id, 'session/compact', { sessionId, keepTurns: 1 });
    const compacted = await h.client.response(id);
    assert.equal((compacted.result as Json | undefined)?.compacted, true, JSON.stringify(compacted));
    await h.prompt({ text: 'P3', sessionId });
    assert.match(lastAsked(), /Started because of compact/);
    // /clear: the session closed with `clear`, the next new session starts with `clear`.
    const close = h.nextId();
    h.client.request(close, 'session/close', { sessionId, reason: 'clear' });
    await h.client.response(close);
    await h.prompt({ text: 'P4' });
    assert.match(lastAsked(), /Started because of clear/);
    assert.deepEqual(
      logged(h.workspace).map((input) => input.source),
      ['startup', 'compact', 'compact', 'clear'],
    );
  });

  test('session/close while the session runs a prompt is SessionBusy; the run goes on', async () => {
    const { h } = await withHooks([{ text: 'slow answer', firstByteDelayMs: 2_000 }], {
      SessionEnd: [hook(undefined, '$CLAUDE_PROJECT_DIR/hooks/SessionEnd.sh')],
    });
    script(h.workspace, 'SessionEnd.sh', 'exit 0');
    const created = h.nextId();
    h.client.request(created, 'session/new', {});
    const sessionId = (((await h.client.response(created)).result as Json).session as Json).sessionId;
    const running = h.prompt({ text: 'take your time', sessionId });
    await h.client.next((m) => m.method === 'phase' && (m.params as Json).type === 'status');
    const id = h.nextId();
    h.client.request(id, 'session/close', { sessionId, reason: 'clear' });
    const busy = (await h.client.response(id)).error as Json | undefined;
    assert.equal(busy?.code, -33004, JSON.stringify(busy));
    assert.match(String(busy?.message), /close it/);
    assert.equal(((await running).response.result as Json).status, 'completed');
    assert.deepEqual(logged(h.workspace), [], 'no SessionEnd ran');
  });

  test('a bad hooks block in the config is refused with the field named', async () => {
    const h = await start(
      'anthropic',
      [{ text: 'x' }],
      {},
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', command: 'x' }] }], OnSave: [] } },
      { capabilities: APPROVER.capabilities },
    );
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'go', agent: 'tester' });
    const answer = await h.client.response(id);
    const message = JSON.stringify(answer.error ?? null);
    assert.match(message, /hooks/);
    assert.match(message, /"command"|OnSave/);
  });
});

describe('project hooks (.santra/settings.json)', () => {
  const PROJECT = {
    hooks: { PreToolUse: [hook('Bash', 'echo "project hook says no" >&2; exit 2')] },
  };

  test('not trusted (the person rejects): the hook does not run; trusted: it runs; changed: asked again', async () => {
    const turns = [
      call('c1', 'run_command', { command: 'touch one' }),
      { text: 'ok' },
      call('c2', 'run_command', { command: 'touch two' }),
      { text: 'ok' },
    ];
    const h = await start('anthropic', turns, {}, {}, { capabilities: APPROVER.capabilities });
    mkdirSync(join(h.workspace, '.santra'), { recursive: true });
    writeFileSync(join(h.workspace, '.santra/settings.json'), JSON.stringify(PROJECT));
    const trustAsked: Json[] = [];
    let trustAnswer = 'reject';
    h.client.handle('approve', (params) => {
      if (params.kind === 'trust') {
        trustAsked.push(params);
        return { decision: trustAnswer };
      }
      return { decision: 'allow' };
    });
    const first = await h.prompt({ text: 'go' });
    assert.equal(trustAsked.length, 1);
    assert.equal(trustAsked[0]?.subject, 'hooks');
    assert.equal(trustAsked[0]?.name, 'PreToolUse');
    assert.equal(trustAsked[0]?.source, '.santra/settings.json');
    assert.match(String(trustAsked[0]?.definition), /project hook says no/);
    assert.equal(resultOf(first.phases, 'c1')?.status, 'ok', 'an untrusted hook does not run');
    assert.ok(existsSync(join(h.workspace, 'one')));

    // A changed definition is a new question; this time the person trusts it.
    trustAnswer = 'allow';
    writeFileSync(
      join(h.workspace, '.santra/settings.json'),
      JSON.stringify({
        hooks: { PreToolUse: [hook('Bash', 'echo "project hook says no, v2" >&2; exit 2')] },
      }),
    );
    const second = await h.prompt({ text: 'go', sessionId: (first.response.result as Json).sessionId });
    assert.equal(trustAsked.length, 2);
    assert.equal(resultOf(second.phases, 'c2')?.status, 'error');
    assert.match(String(resultOf(second.phases, 'c2')?.output), /project hook says no, v2/);
    assert.equal(existsSync(join(h.workspace, 'two')), false);
  });

  test('with no client that can approve, project hooks never run', async () => {
    const h = await start(
      'anthropic',
      [call('c1', 'run_command', { command: 'ls' }), { text: 'ok' }],
      {},
      {},
      { capabilities: {} },
    );
    mkdirSync(join(h.workspace, '.santra'), { recursive: true });
    writeFileSync(join(h.workspace, '.santra/settings.json'), JSON.stringify(PROJECT));
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'c1')?.status, 'ok');
  });
});
