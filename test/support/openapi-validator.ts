import { execFile } from 'node:child_process';

/** Validates with @seriousme/openapi-schema-validator, reading the document from standard input. */
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const result = await new Validator().validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors ?? [] }));
`;

/**
 * An OpenAPI document checked against the OpenAPI specification's own JSON schema. The validator is
 * an ES module, which jest's CommonJS runtime cannot load, so it runs in a Node process of its own.
 */
export function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', VALIDATE], { cwd: __dirname, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the validator failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as { valid: boolean; errors: unknown[] });
    });
    child.stdin!.end(JSON.stringify(document));
  });
}
