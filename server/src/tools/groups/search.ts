/** The search and fetch tools: grep_search over the workspace, web_fetch and web_search. */
import { grepSearchTool } from '../grep-search.ts';
import type { Tool } from '../types.ts';
import { type WebFetchOptions, webFetchTool } from '../web-fetch.ts';
import { type WebSearchOptions, webSearchTool } from '../web-search.ts';

export interface SearchToolsOptions {
  /** Address policy and limits of web_fetch (e.g. `allowPrivateNetwork` from the user's config). */
  webFetch?: WebFetchOptions;
  /** API base URLs and limits of web_search. */
  webSearch?: WebSearchOptions;
}

/** grep_search, web_fetch and web_search. */
export function searchTools(options: SearchToolsOptions = {}): Tool[] {
  return [grepSearchTool(), webFetchTool(options.webFetch), webSearchTool(options.webSearch)];
}
