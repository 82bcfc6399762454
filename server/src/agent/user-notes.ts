/**
 * Notes that tell the model what the person did outside its turns: an answer they stopped, file
 * changes they undid. They join the session's conversation as user messages, in brackets, so the
 * next request (from any client) carries them; the wire APIs merge them with the user's next
 * message where an API wants turns to alternate.
 */
import type { UndoneChange } from '#protocol';
import { type ChatMessage, userText } from '../providers/messages.ts';

/** The person stopped the run before it finished. */
export function interruptedNote(answered: boolean): ChatMessage {
  return userText(
    answered
      ? '[The user stopped your answer above before it was finished; it is incomplete, and nothing after it was done.]'
      : '[The user stopped this request before you answered it.]',
  );
}

/** The person undid file changes the agents made (session/undo). Undefined when nothing was undone. */
export function undoNote(changes: readonly UndoneChange[]): ChatMessage | undefined {
  const lines = changes.map((change) => {
    const what =
      change.operation === 'create'
        ? `${change.path} (created) was deleted`
        : change.operation === 'delete'
          ? `${change.path} (deleted) was brought back`
          : change.operation === 'move'
            ? `${change.path} (moved to ${change.destination ?? '?'}) was moved back`
            : `${change.path} (edited) was restored to its content before the edit`;
    return change.outcome === 'restored'
      ? `- ${what}`
      : `- ${change.path}: the undo left it as it is (${change.reason ?? 'kept'})`;
  });
  if (!changes.some((change) => change.outcome === 'restored')) return undefined;
  return userText(
    `[The user undid file changes made in this session. The files are now as follows, whatever was said above:\n${lines.join('\n')}]`,
  );
}
