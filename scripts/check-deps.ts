/** Fails when an import breaks the dependency rules or the layers of server/src (see dependency-rules.ts). */
import { fileURLToPath } from 'node:url';
import { findViolations, formatViolation } from './dependency-rules.ts';

const violations = await findViolations(fileURLToPath(new URL('..', import.meta.url)));
for (const violation of violations) process.stderr.write(`${formatViolation(violation)}\n`);
if (violations.length > 0) {
  process.stderr.write(
    `${violations.length} import(s) break the dependency rules (scripts/dependency-rules.ts)\n`,
  );
  process.exit(1);
}
