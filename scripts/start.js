/**
 * `npm start`: the santra program, after the same checks the build makes. Plain JavaScript, so an
 * old Node (or an install whose build never ran) gets one sentence saying what to do, not a
 * module-not-found stack trace.
 */
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { nodeVersionOk } from './node-version.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const santra = fileURLToPath(new URL('../dist/santra.js', import.meta.url));
if (nodeVersionOk(process, 'santra', packageJson.engines.node)) {
  if (existsSync(santra)) await import(pathToFileURL(santra).href);
  else {
    process.stderr.write(
      'santra is not built yet (' +
        santra +
        ' is missing): run npm install (or npm run build) in this repository with Node.js ' +
        packageJson.engines.node +
        ', then npm start again.\n',
    );
    process.exitCode = 1;
  }
}
