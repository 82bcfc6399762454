/**
 * Where the agents work, and when and from where the user writes. The system prompt heads every
 * request's cached prefix (providers/cache-plan.ts), so it must be the same for every request of a
 * role, day after day and whatever directory the user starts in: it says only where the project
 * is. What changes — today's date, the directory the user works in and its instruction files — goes into the conversation
 * instead, as an `<environment>` note on a prompt's message, written when it differs from the last
 * note the conversation holds (its first prompt, a new day, another directory, after a compaction
 * summarised the last one away). Sub-agents read it in the history they inherit.
 */
import { type ChatMessage, environmentNoteText, isEnvironmentNote } from '../providers/messages.ts';

/** What every agent's system prompt ends with. */
export function workspaceNote(workspaceRoot: string): string {
  return `You work in the project at ${workspaceRoot} (paths are relative to it). The user's messages may end with an <environment> note saying today's date, the directory the user works in and the project instructions kept there; the latest note holds.`;
}

/**
 * The note for a prompt sent from `startDir` (absolute; undefined for the project root) on the day
 * of `now`, with the instructions of the directories down to it (nestedInstructionsText), or
 * undefined when the last note of `messages` says the same.
 */
export function environmentNote(
  messages: readonly ChatMessage[],
  startDir: string | undefined,
  now = new Date(),
  nestedInstructions?: string,
): string | undefined {
  const where =
    startDir === undefined
      ? 'the project root'
      : `${startDir}: a relative path they mention is relative to that directory (give tools the path from the project root)`;
  const note = environmentNoteText(
    [`Today is ${now.toISOString().slice(0, 10)}. The user is working in ${where}.`, nestedInstructions]
      .filter((part) => part !== undefined)
      .join('\n\n'),
  );
  return lastNote(messages) === note ? undefined : note;
}

function lastNote(messages: readonly ChatMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    for (const block of message.content)
      if (block.type === 'text' && isEnvironmentNote(block.text)) return block.text;
  }
  return undefined;
}
