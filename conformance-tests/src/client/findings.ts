/** A check's outcome for one requirement in one scenario, and the helpers that build them. */
import type { ClientRequirementId } from './requirements.ts';

export type Status = 'pass' | 'fail' | 'not_applicable';

export interface Finding {
  requirement: ClientRequirementId;
  status: Status;
  /** What was seen: for a failure, what was wrong and where in the transcript. */
  message: string;
}

export const pass = (requirement: ClientRequirementId, message: string): Finding => ({
  requirement,
  status: 'pass',
  message,
});
export const fail = (requirement: ClientRequirementId, message: string): Finding => ({
  requirement,
  status: 'fail',
  message,
});
export const notApplicable = (requirement: ClientRequirementId, message: string): Finding => ({
  requirement,
  status: 'not_applicable',
  message,
});

/** Pass when `problems` is empty, otherwise a failure listing the first few. */
export function fromProblems(requirement: ClientRequirementId, problems: string[], passed: string): Finding {
  if (problems.length === 0) return pass(requirement, passed);
  const shown = problems.slice(0, 5).join('; ');
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  return fail(requirement, `${shown}${more}`);
}
