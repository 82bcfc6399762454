import type * as z from 'zod';
import { ProtocolFault } from '../support/protocol-fault.ts';

export interface ParamIssue {
  /** Dotted path from the params root, e.g. `params.clientInfo.name` or `params.options[0].label`. */
  path: string;
  message: string;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): ParamIssue[] {
  return issues.map((issue) => {
    const path = issue.path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`),
      'params',
    );
    if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      return { path, message: `is required (expected ${issue.expected})` };
    }
    return { path, message: issue.message.replace(/^Invalid input: /, '') };
  });
}

/** Validates params against a method's schema; a failure is an InvalidParams fault naming each field. */
export function parseParams<T extends z.ZodType>(method: string, schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error.issues);
  const summary = issues.map((issue) =>
    issue.message.startsWith('is required')
      ? `${issue.path} ${issue.message}`
      : `${issue.path}: ${issue.message}`,
  );
  throw new ProtocolFault('InvalidParams', `Invalid params for ${method}: ${summary.join('; ')}`, {
    issues,
  });
}
