/**
 * A finished block of answer text, rendered once for the terminal: marked parses it and
 * marked-terminal turns it into styled text, with code blocks highlighted (highlight.js through
 * cli-highlight). marked-terminal also strips control characters from the model's text, so an
 * answer cannot move the cursor or retitle the terminal. Colours follow chalk's detection of
 * stdout (NO_COLOR, FORCE_COLOR, a pipe).
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Languages tried for a code block that names none: few, so guessing stays fast on long blocks. */
const GUESSED_LANGUAGES = ['typescript', 'javascript', 'python', 'bash', 'json', 'go', 'rust', 'java', 'css'];

let marked: Marked | undefined;

function instance(): Marked {
  marked ??= new Marked(
    markedTerminal(
      { emoji: false, tab: 2, reflowText: false, showSectionPrefix: true, width: 80 },
      { languageSubset: GUESSED_LANGUAGES, ignoreIllegals: true },
    ),
  );
  return marked;
}

/** The block as styled terminal text, without trailing blank lines. */
export function renderMarkdown(text: string): string {
  try {
    return instance().parse(text, { async: false }).replace(/\s+$/, '');
  } catch {
    // marked does not throw on any input it documents; if it ever does, show the text as written.
    return text.replace(/\s+$/, '');
  }
}
