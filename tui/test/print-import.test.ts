/**
 * `santra import`'s command line, where it looks for each agent's transcripts, and the line it
 * prints per file. (scripts/test/import-cli.test.ts runs the built command against a server.)
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { claudeProjectFolder, findTranscripts } from '../src/import/discover.ts';
import { importLine, parseImportArgs } from '../src/import/import-command.ts';
import { parseCommandLine } from '../src/print/args.ts';
import { sessionTable } from '../src/print/list-command.ts';

describe('santra import: the command line', () => {
  test('santra import … is dispatched whole to the import command', () => {
    assert.deepEqual(parseCommandLine(['import', 'claude', '--all'], { stdinIsTTY: true, cwd: '/w' }), {
      action: 'import',
      args: ['claude', '--all'],
    });
  });

  test('an agent and files, or --all', () => {
    assert.deepEqual(parseImportArgs(['codex', 'a.jsonl', '/abs/b.jsonl'], '/w'), {
      format: 'codex',
      files: ['/w/a.jsonl', '/abs/b.jsonl'],
      all: false,
      json: false,
      cwd: '/w',
      cwdGiven: false,
    });
    assert.deepEqual(parseImportArgs(['pi', '--all', '--json', '--cwd', 'sub'], '/w'), {
      format: 'pi',
      files: [],
      all: true,
      json: true,
      cwd: '/w/sub',
      cwdGiven: true,
    });
    for (const [argv, pattern] of [
      [[], /needs the agent/],
      [['gemini', 'x'], /reads claude, codex or pi transcripts, not "gemini"/],
      [['claude'], /name the transcripts to import, or --all/],
      [['claude', 'x', '--all'], /files or --all, not both/],
      [['claude', '--everything'], /Unknown option '--everything'/],
      [['claude', '--all', '--cwd', ''], /--cwd needs a directory/],
    ] as const)
      assert.match((parseImportArgs(argv, '/w') as { error: string }).error, pattern, argv.join(' '));
  });
});

describe('santra import --all: where each agent keeps a project’s transcripts', () => {
  test("Claude Code's folder: every character but letters and digits as a dash", () => {
    assert.equal(claudeProjectFolder('/home/ada/my_project.v2'), '-home-ada-my-project-v2');
    const home = tempDir('santra-home-');
    const folder = join(home, '.claude', 'projects', '-w-my-app');
    mkdirSync(join(folder, 'abc', 'subagents'), { recursive: true });
    writeFileSync(join(folder, 'b.jsonl'), '');
    writeFileSync(join(folder, 'a.jsonl'), '');
    writeFileSync(join(folder, 'abc', 'subagents', 'agent-1.jsonl'), '');
    assert.deepEqual(findTranscripts('claude', '/w/my_app', { HOME: home }).files, [
      join(folder, 'a.jsonl'),
      join(folder, 'b.jsonl'),
    ]);
    const elsewhere = tempDir('santra-claude-');
    assert.equal(
      findTranscripts('claude', '/w/my_app', { HOME: home, CLAUDE_CONFIG_DIR: elsewhere }).lookedIn,
      join(elsewhere, 'projects', '-w-my-app'),
    );
  });

  test('Codex rollouts whose session_meta names the project (or a directory in it); pi’s folder', () => {
    const home = tempDir('santra-home-');
    const day = join(home, '.codex', 'sessions', '2026', '02', '23');
    mkdirSync(day, { recursive: true });
    const meta = (cwd: string) =>
      `${JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'x', cwd } })}\n`;
    writeFileSync(join(day, 'rollout-1.jsonl'), meta('/w/app'));
    writeFileSync(join(day, 'rollout-2.jsonl'), meta('/w/app/sub'));
    writeFileSync(join(day, 'rollout-3.jsonl'), meta('/w/application'));
    writeFileSync(join(day, 'rollout-4.jsonl'), 'not json\n');
    writeFileSync(join(day, 'notes.jsonl'), meta('/w/app'));
    assert.deepEqual(
      findTranscripts('codex', '/w/app', { HOME: home }).files.map((file) => file.slice(day.length + 1)),
      ['rollout-1.jsonl', 'rollout-2.jsonl'],
    );
    const pi = join(home, '.pi', 'agent', 'sessions', '--w-app--');
    mkdirSync(pi, { recursive: true });
    writeFileSync(join(pi, '2026-01-12T09-00-00-000Z_1.jsonl'), '');
    assert.deepEqual(findTranscripts('pi', '/w/app', { HOME: home }).files, [
      join(pi, '2026-01-12T09-00-00-000Z_1.jsonl'),
    ]);
  });
});

describe('santra import: what it says of each file', () => {
  const session = {
    sessionId: 'ses_1',
    title: 't',
    workspaceRoot: '/w',
    createdAt: 'c',
    updatedAt: 'u',
    messageCount: 3,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    lastSeq: 4,
  };
  const counts = {
    runs: 1,
    messages: 3,
    toolCalls: 2,
    mappedToolCalls: 1,
    textToolCalls: 1,
    skippedLines: 0,
  };
  test('created (and why, when it was imported before), appended, unchanged', () => {
    assert.equal(
      importLine('a.jsonl', { session, outcome: 'created', counts, warnings: [] }),
      "a.jsonl: imported as ses_1 (1 prompt, 3 messages; 2 tool calls: 1 as Santra's tools, 1 as text)\n",
    );
    assert.equal(
      importLine('a.jsonl', {
        session,
        outcome: 'created',
        reason: 'It went on here.',
        counts,
        warnings: [],
      }),
      "a.jsonl: imported as ses_1 (1 prompt, 3 messages; 2 tool calls: 1 as Santra's tools, 1 as text)\n  It went on here.\n",
    );
    assert.equal(
      importLine('a.jsonl', {
        session,
        outcome: 'appended',
        counts: { ...counts, toolCalls: 0 },
        warnings: [],
      }),
      'a.jsonl: 1 prompt added to ses_1 (3 messages)\n',
    );
    assert.equal(
      importLine('a.jsonl', { session, outcome: 'unchanged', counts, warnings: [] }),
      'a.jsonl: already imported as ses_1, unchanged\n',
    );
  });

  test('santra sessions says "imported" where an imported session’s cost would be, until it is continued here', () => {
    const imported = { ...session, imported: { from: 'claude' as const, usage: session.usage } };
    const table = sessionTable({
      sessions: [imported, { ...imported, sessionId: 'ses_2', costUsd: 0.0123 }],
      warnings: [],
    });
    assert.match(table, /^ses_1 .* imported {2}t$/m);
    assert.match(table, /^ses_2 .* {3}\$0\.01 {2}t$/m);
  });
});
