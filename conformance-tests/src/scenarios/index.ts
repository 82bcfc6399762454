/** Every scenario of the suite, in the order of the spec's sections. */
import type { Scenario } from '../run/runner.ts';
import { APPROVE } from './approve.ts';
import { ASK } from './ask.ts';
import { CANCEL } from './cancel.ts';
import { CATALOG } from './catalog.ts';
import { COST } from './cost.ts';
import { FILES } from './files.ts';
import { FRAMING } from './framing.ts';
import { IMPORT } from './import.ts';
import { LIFECYCLE } from './lifecycle.ts';
import { LIVE } from './live.ts';
import { MCP } from './mcp.ts';
import { MODES } from './modes.ts';
import { FALLBACK_SCENARIOS } from './fallback.ts';
import { NAMES } from './names.ts';
import { REWIND } from './rewind.ts';
import { EVENTS } from './events.ts';
import { RUNS } from './runs.ts';
import { SANDBOX } from './sandbox.ts';
import { SESSIONS } from './sessions.ts';
import { SKILLS } from './skills.ts';

export const SCENARIOS: Scenario[] = [
  ...FRAMING,
  ...LIFECYCLE,
  ...CANCEL,
  ...RUNS,
  ...APPROVE,
  ...SANDBOX,
  ...ASK,
  ...FILES,
  ...COST,
  ...MODES,
  ...MCP,
  ...SKILLS,
  ...CATALOG,
  ...FALLBACK_SCENARIOS,
  ...SESSIONS,
  ...NAMES,
  ...REWIND,
  ...EVENTS,
  ...IMPORT,
  ...LIVE,
];
