/**
 * The Node.js version check that runs first in every entry point: the build (scripts/build.js) and
 * the three programs (the build copies this function's source to the top of each dist/ bin).
 *
 * Plain ES5 that uses nothing but its arguments, so any Node can parse and run it: it must work
 * before anything an old Node cannot load (TypeScript sources, `enableCompileCache`, new syntax).
 */

/**
 * Whether this Node satisfies `range` (package.json's engines.node, of the form `>=22.18`). If not,
 * says so in one line on stderr (what is needed, what was found, how to get it), sets exit code 1
 * and returns false. A range of another form is not judged (true); the build refuses one.
 */
export function nodeVersionOk(proc, program, range) {
  var wanted = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  if (!wanted) return true;
  var found = proc.versions.node.split('.');
  var difference = 0;
  for (var i = 0; i < 3 && difference === 0; i++) {
    difference = (Number(found[i]) || 0) - (Number(wanted[i + 1]) || 0);
  }
  if (difference >= 0) return true;
  var get = Math.max(24, Number(wanted[1]));
  var line = program + ' needs Node.js ' + range + ', but this is Node.js ' + proc.version;
  line += ' (' + proc.execPath + '). Install Node ' + get + ' from https://nodejs.org';
  line += ' or with your version manager (nvm install ' + get + '), then try again.\n';
  proc.stderr.write(line);
  proc.exitCode = 1;
  return false;
}
