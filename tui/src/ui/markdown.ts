/**
 * A finished block of answer text, rendered once for the terminal: marked parses it and
 * marked-terminal turns it into styled text, with code blocks highlighted (highlight.js through
 * cli-highlight). marked-terminal also strips control characters from the model's text, so an
 * answer cannot move the cursor or retitle the terminal. Colours follow chalk's detection of
 * stdout (NO_COLOR, FORCE_COLOR, a pipe).
 */
import { Marked, type MarkedExtension, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Languages tried for a code block that names none: few, so guessing stays fast on long blocks. */
const GUESSED_LANGUAGES = ['typescript', 'javascript', 'python', 'bash', 'json', 'go', 'rust', 'java', 'css'];

/**
 * The text of a tight list item is a block-level text token whose inline tokens (code, emphasis,
 * links) marked-terminal 7 ignores: it prints the item's source, backticks and all. Marked's own
 * renderer renders those tokens; this does the same, and leaves every other text to
 * marked-terminal (returning false hands the token on to it). A tight task item's checkbox is a
 * token of its own, which marked prints, and marked-terminal would print it a second time: the
 * item is no longer marked as a task for marked-terminal, so the box is printed once.
 */
const inlineText: MarkedExtension = {
  walkTokens(token) {
    if (token.type === 'list_item' && token.task && !token.loose && token.tokens?.[0]?.type === 'checkbox') {
      token.task = false;
    }
  },
  renderer: {
    text(token: Tokens.Text | Tokens.Escape) {
      return 'tokens' in token && token.tokens !== undefined ? this.parser.parseInline(token.tokens) : false;
    },
  },
};

let marked: Marked | undefined;

function instance(): Marked {
  marked ??= new Marked(
    markedTerminal(
      { emoji: false, tab: 2, reflowText: false, showSectionPrefix: true, width: 80 },
      { languageSubset: GUESSED_LANGUAGES, ignoreIllegals: true },
    ),
    inlineText,
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
