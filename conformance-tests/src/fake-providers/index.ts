/**
 * Fake model providers for tests: loopback HTTP servers speaking the real streaming wire formats
 * of the Anthropic Messages API, the OpenAI Chat Completions API and the OpenAI Responses API,
 * driven by scripted turns (or recorded bodies).
 * Imports only node built-ins, so any client (the TUI, the conformance suite) can use it.
 */
export { startFakeProvider } from './server.ts';
export { lastRole, lastUserText, summarizeRequest, toolNames } from './request-helpers.ts';
export type {
  FakeApi,
  FakeFault,
  FakeProvider,
  FakeToolCall,
  FakeTurn,
  FakeUsage,
  RecordedRequest,
} from './types.ts';
