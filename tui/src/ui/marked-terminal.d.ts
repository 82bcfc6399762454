/**
 * Types of marked-terminal 7 as Santra uses them (its own package has none; @types/marked-terminal
 * is for marked < 12).
 */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    emoji?: boolean;
    tab?: number;
    reflowText?: boolean;
    showSectionPrefix?: boolean;
    width?: number;
  }

  export interface HighlightOptions {
    languageSubset?: string[];
    ignoreIllegals?: boolean;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlight?: HighlightOptions,
  ): MarkedExtension;
}
