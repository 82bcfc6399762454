/**
 * The transcripts of other agents the import tests read (server/test/fixtures/transcripts/;
 * SOURCES.md there says where each shape comes from).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const TRANSCRIPTS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
/** Claude Code: two prompts, a rewound branch, a sub-agent, a tool with no match, a call left unanswered. */
export const CLAUDE = 'claude/4f35e220-c435-4cf7-b9b9-f40426042847.jsonl';
/** Claude Code: a conversation compacted with /compact. */
export const CLAUDE_COMPACTED = 'claude/7195cfed-d73e-458f-9a6c-6a0e85c59b83.jsonl';
/** Codex 0.104: exec_command, apply_patch, update_plan, shell_command, a web search, view_image. */
export const CODEX = 'codex/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl';
/** pi, version 3: a branch left with /tree, a model switched, a command the person ran. */
export const PI = 'pi/2026-01-12T09-00-00-000Z_1f9d2a3c-5b6e-4f70-8a91-b2c3d4e5f607.jsonl';

export function transcript(name: string): string {
  return readFileSync(`${TRANSCRIPTS}${name}`, 'utf8');
}
