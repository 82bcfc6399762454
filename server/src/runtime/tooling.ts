/**
 * Everything tools need, loaded on demand: the tools themselves, the approval gate, diffs,
 * search, the command allowlist. It is about three quarters of the server's code, and none of
 * it is needed to answer `initialize`.
 */
export { allTools } from '../tools/registry.ts';
export { toolContexts } from './tool-context.ts';
export { toolPolicyProblems } from '../tools/tool-policy.ts';
