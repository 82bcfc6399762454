/** Fails when an import breaks the dependency rules of DESIGN.md (see dependency-rules.ts). */
import { fileURLToPath } from 'node:url';
import { findViolations } from './dependency-rules.ts';

const violations = await findViolations(fileURLToPath(new URL('..', import.meta.url)));
for (const { file, specifier, rule } of violations) {
  process.stderr.write(
    `${file}: imports "${specifier}" — ${rule.from} may not import ${rule.forbidden}: ${rule.why}\n`,
  );
}
if (violations.length > 0) process.exit(1);
