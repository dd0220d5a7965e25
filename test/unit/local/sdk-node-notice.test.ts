import { spawn } from 'node:child_process';
import { join } from 'node:path';

// The AWS SDK's Node-version notice is off wherever our entry points load lib/local/sdk-node-notice,
// and nothing else goes quiet with it. Each case is a fresh node process, since the SDK prints the
// notice once per process, on stderr, when a client is constructed.
const NOTICE = 'NodeVersionSupportWarning';
const MODULE = join(__dirname, '../../../lib/local/sdk-node-notice.ts');
// The SDK only prints it below Node 22; on 22 and later the control case has nothing to show.
const sdkNotices = Number(process.versions.node.split('.')[0]) < 22;

/** stderr of a node process that (optionally) loads our module, builds an SDK client and emits another warning. */
function stderrOf(loadModule: boolean): Promise<string> {
  const script = [
    loadModule ? `require(${JSON.stringify(MODULE)});` : '',
    "const { SQSClient } = require('@aws-sdk/client-sqs');",
    "new SQSClient({ region: 'us-east-1' });",
    "process.emitWarning('a warning of our own', 'OtherWarning');",
  ].join('\n');
  // The child starts from a clean slate: jest's setup file has set the switch in this process.
  const env = { ...process.env };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stderr) : reject(new Error(`child exited with ${code}: ${stderr}`))));
  });
}

(sdkNotices ? it : it.skip)('is printed by the SDK without our module (so the check below can see it)', async () => {
  expect(await stderrOf(false)).toContain(NOTICE);
});

it('is not printed with our module loaded, and other warnings still are', async () => {
  const stderr = await stderrOf(true);
  expect(stderr).not.toContain(NOTICE);
  expect(stderr).toContain('OtherWarning: a warning of our own');
});
