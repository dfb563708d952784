// Build step after tsc: the dashboard's page files and uPlot's dist files go to
// dist/src/dashboard/assets, inside the package ("files": ["dist/src"]). Local files only:
// nothing is fetched, at build or at run time.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src/dashboard/assets');
const to = join(root, 'dist/src/dashboard/assets');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) copyFileSync(join(from, name), join(to, name));
const uplotDist = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));
for (const name of ['uPlot.iife.min.js', 'uPlot.min.css']) copyFileSync(join(uplotDist, name), join(to, name));
// MIT: its copyright notice travels with the copy.
copyFileSync(join(uplotDist, '..', 'LICENSE'), join(to, 'uPlot.LICENSE'));
