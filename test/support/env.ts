// Loaded by jest before every test file: quiet logs, and
// credentials for SDK clients to sign with.

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
