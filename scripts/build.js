/**
 * The build's entry point (`npm install` runs it as "prepare", `npm run build` as "build"). Plain
 * JavaScript, so that an old Node, which cannot load build.ts at all, is told which Node to install
 * instead of failing with a stack trace; then build.ts does the work.
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';
import { nodeVersionOk } from './node-version.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
if (nodeVersionOk(process, 'Building santra', packageJson.engines.node)) await import('./build.ts');
