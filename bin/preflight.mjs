// Runs before `npm start` and `npm test` (npm's prestart and pretest), before anything is loaded:
// on a Node older than package.json's engines, one line says what to run instead. Plain JavaScript
// that any Node since 14 runs, so that an old Node gets as far as saying so.
import { readFileSync } from 'fs';
import process from 'process';
import { URL } from 'url';

const read = (file) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
const minimum = Number(/\d+/.exec(JSON.parse(read('package.json')).engines.node)[0]);
// The major Lambda runs, which CI and local mode run too.
const lambda = read('.nvmrc').trim();
const running = process.versions.node;

if (Number(running.split('.')[0]) < minimum) {
  const script = (process.env.npm_lifecycle_event || 'prestart').replace(/^pre/, '');
  process.stderr.write(
    `Mailplane needs Node ${minimum} or later, and this is Node ${running}: run \`npx -y -p node@${lambda} npm ${script}\` (Node ${lambda} from the npm registry, as Lambda runs), or install Node ${lambda} (.nvmrc).\n`,
  );
  process.exit(1);
}
