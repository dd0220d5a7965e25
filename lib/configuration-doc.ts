import { PLATFORM_SETTINGS, type Setting } from '../functions/platform/env';
import { LOCAL_DEFAULTS, LOCAL_HOST_SETTINGS } from './local/settings';
import { acceptedValues, defaultValue } from './setting-values';

// docs/configuration.md, written from the settings' own schemas (`npm run docs:config`); a test
// fails while the committed page differs from what this writes.

export const CONFIGURATION_DOC = 'docs/configuration.md';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (value: string) => `\`${value}\``;

function fallbackOf(entry: Setting): string {
  const fixed = defaultValue(entry.schema);
  return fixed !== undefined ? code(fixed) : (entry.fallback ?? 'unset');
}

/** The default, saying so where local mode's differs from the handlers' own (AWS's). */
function handlerDefault(name: string, entry: Setting): string {
  const local = LOCAL_DEFAULTS[name as keyof typeof LOCAL_DEFAULTS];
  const own = fallbackOf(entry);
  return local === undefined ? own : `${code(local)} locally, ${own} on AWS`;
}

function table(rows: string[][]): string {
  const [head, ...body] = rows;
  return [head!, head!.map(() => '---'), ...body].map((row) => `| ${row.map(cell).join(' | ')} |`).join('\n');
}

const settingRows = (settings: Record<string, Setting>, defaultOf: (name: string, entry: Setting) => string) =>
  Object.entries(settings).map(([name, entry]) => [code(name), defaultOf(name, entry), acceptedValues(entry), entry.about]);

export function configurationDoc(): string {
  const handlerSettings = Object.entries(PLATFORM_SETTINGS as Record<string, Setting>);
  const operated = Object.fromEntries(handlerSettings.filter(([, entry]) => !entry.wired));
  const wired = handlerSettings.filter(([, entry]) => entry.wired);
  const header = ['Variable', 'Default', 'Accepts', 'Meaning'];
  return `# Configuration

<!-- Written by \`npm run docs:config\` from lib/local/settings.ts and functions/platform/env.ts: edit those, then run it. -->

Local mode (\`npm start\`) reads the settings of the first two tables from its environment and from
a \`.env\` file in the working directory (\`NAME=value\` lines, \`#\` comments); a variable set in the
environment wins over the file, and a blank value counts as unset. A value a setting does not
accept stops the start with one line naming the variable and what it takes.

On AWS the handlers' settings are the Lambda functions' environment, which the CDK app writes. Those
an operator chooses come from context options (\`-c name=value\` on \`cdk deploy\`, or \`cdk.json\`),
named in their rows; the others keep their default there.

## Local mode

Where \`npm start\` listens and keeps its data.

${table([header, ...settingRows(LOCAL_HOST_SETTINGS, (_, entry) => fallbackOf(entry))])}

## The handlers

The same settings on AWS and in local mode, read by every handler (\`functions/platform/env.ts\`).
Where local mode's default differs from AWS's, the Default column gives both.

${table([header, ...settingRows(operated, handlerDefault)])}

## Set by the host

Wired by the CDK app from the stack's resources, and by local mode from its stand-ins: listed for
contributors, never set by hand (local mode ignores them in its environment).

${table([['Variable', 'Accepts', 'Meaning'], ...wired.map(([name, entry]) => [code(name), acceptedValues(entry), entry.about])])}
`;
}
