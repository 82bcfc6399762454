/**
 * `/memory` in the terminal UI: the memory files and where they are (memory/show), or, with
 * `add TEXT` (`add --user TEXT` for the user's file), a fact remembered through memory/add, which
 * redacts secrets before anything is written (§7.10). Editing is done in the user's editor on the
 * file itself: `santra memory edit`, or any editor on the path shown.
 */
import type { Backend } from './backend.ts';
import { memoryText } from '../client/knowledge-text.ts';

/** The note /memory shows for `arg` (what followed the command). */
export async function memoryCommand(server: Backend, arg: string): Promise<string> {
  const words = arg.trim();
  if (words === '' || words === 'show') {
    const text = memoryText(await server.request('memory/show', {})).trimEnd();
    return `${text}\nEdit a file in your editor (santra memory edit, or --user for yours); /memory add TEXT remembers a fact.`;
  }
  const add = /^add(?:\s+(--user))?(?:\s+([^]*))?$/.exec(words);
  if (add === null) return `/memory takes nothing, "add TEXT" or "add --user TEXT", not "${words}".`;
  const text = add[2]?.trim() ?? '';
  if (text === '') return '/memory add needs the fact to remember, e.g. /memory add tests run with npm test';
  const result = await server.request('memory/add', {
    scope: add[1] === undefined ? 'project' : 'user',
    text,
  });
  if (result.added === undefined) return `${result.file.path} already holds that.`;
  const dropped =
    result.dropped.length === 0 ? '' : `\nDropped to keep the file short: ${result.dropped.join('; ')}`;
  return `Remembered in ${result.file.path}: ${result.added}${dropped}`;
}
