/**
 * The fake model providers (conformance-tests/src/fake-providers) for the TUI's end-to-end tests.
 * tui/ may not import conformance-tests/ (clients do not depend on each other: see
 * scripts/dependency-rules.ts), but scripts/ ties the parts together, as fleet-harness.ts does for
 * the worker fleet: a tui test that drives the real santra against a fake provider imports it from
 * here.
 */
export { startFakeProvider, toolNames } from '../conformance-tests/src/fake-providers/index.ts';
export type {
  FakeProvider,
  FakeTurn,
  RecordedRequest,
} from '../conformance-tests/src/fake-providers/index.ts';
