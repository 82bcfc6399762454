/**
 * The requirements the client mode checks, read from the spec (protocol-spec/README.md) like the
 * server suite's: the "Client requirements" (SANTRA-CLIENT-NNN) and the client-tier requirements
 * of §1–§10 that a client's frames show. A check cites one of CHECKED; loading fails when the spec
 * lacks one of them, so an id can never drift from the text.
 */
import { loadRequirements, type Requirement } from '../spec/requirements.ts';

export const CHECKED = [
  'SANTRA-CLIENT-001',
  'SANTRA-FRAME-008',
  'SANTRA-CLIENT-002',
  'SANTRA-CLIENT-003',
  'SANTRA-LIFE-003',
  'SANTRA-CLIENT-004',
  'SANTRA-CLIENT-005',
  'SANTRA-MSG-008',
  'SANTRA-CLIENT-006',
  'SANTRA-CLIENT-007',
  'SANTRA-CLIENT-008',
  'SANTRA-MSG-007',
  'SANTRA-APPROVE-016',
  'SANTRA-VER-003',
  // Binds every receiver (§2.5); the client mode checks the client's side of it.
  'SANTRA-MSG-015',
  'SANTRA-CLIENT-009',
  'SANTRA-CLIENT-010',
  'SANTRA-CLIENT-011',
  'SANTRA-CLIENT-012',
  'SANTRA-CLIENT-013',
  'SANTRA-APPROVE-011',
  'SANTRA-ASK-005',
  'SANTRA-CLIENT-014',
  'SANTRA-FRAME-012',
  'SANTRA-CLIENT-015',
  'SANTRA-CLIENT-016',
  // §7.5, for a client that lends its editor (editor-scenario.ts); not applicable to one that does not.
  'SANTRA-FILES-007',
  'SANTRA-FILES-010',
] as const;

export type ClientRequirementId = (typeof CHECKED)[number];

/** A checked requirement as the spec states it. */
export type ClientRequirement = Requirement & { id: ClientRequirementId };

/**
 * The checked requirements in the order of CHECKED, from `spec` (default: the spec this suite
 * ships with). Throws naming any checked id the spec does not have.
 */
export function clientRequirements(spec: Requirement[] = loadRequirements()): ClientRequirement[] {
  const byId = new Map(spec.map((r) => [r.id, r]));
  const missing = CHECKED.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new Error(
      `the client mode checks ${missing.join(', ')}, which protocol-spec/README.md does not define`,
    );
  return CHECKED.map((id) => byId.get(id) as ClientRequirement);
}

/** Client-tier requirements of the spec that the client mode does not check (what a user sees). */
export function uncheckedClientRequirements(spec: Requirement[] = loadRequirements()): Requirement[] {
  const checked = new Set<string>(CHECKED);
  return spec.filter((r) => r.subject === 'client' && !checked.has(r.id));
}
