/**
 * Turns off the AWS SDK's NodeVersionSupportWarning, through the switch the SDK documents for it
 * (aws/aws-sdk-js-v3#7983). Imported first by every entry point that runs on this machine:
 * `npm start` (bin/local.ts), jest (test/support/env.ts) and the benchmarks; child processes
 * inherit it through the environment.
 *
 * Why: the SDK's client constructors print it once per process on Node below 22, several lines
 * each time, burying real output. It warns that SDK versions published after January 2027 will
 * need Node 22; local mode supports Node 20.19+ (package.json engines) and the Lambda runtime is
 * nodejs22.x, where it never shows. Node 20's end is a dependency-upgrade decision, not something
 * to repeat on every start. The SDK reads the variable when a client is constructed, and only this
 * one warning: every other warning is still printed. A value set by the user is left alone.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
