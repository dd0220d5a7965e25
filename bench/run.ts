/**
 * `npm run bench`: every benchmark, each against a floor measured in the same run, then a summary.
 * A report, not a gate: it exits 0 when a target is missed (and 1 only when a benchmark could not run).
 * Results also go to bench/.out/results.json.
 *
 *   npm run bench                     all benchmarks, with their CPU profiles (attribution only)
 *   npm run bench -- --no-profile     without the profiles (about 20 s shorter)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { coldStart, printColdStart, type ColdStartResult } from './cold-start';
import { eventIngest, printEventIngest, type EventIngestResult } from './event-ingest';
import { listExpansion, printListExpansion, type ListExpansionResult } from './list-expansion';
import { fixed, OUT_DIR, print, ratio, REPORTED, table, type TargetCheck } from './lib/report';
import { metricsQuery, printMetricsQuery, type MetricsQueryResult } from './metrics-query';
import { printRequestOverhead, requestOverhead, type RequestOverheadResult } from './request-overhead';
import { printSendCpu, sendCpu, type SendCpuResult } from './send-cpu';
import { printSmtpSubmission, smtpSubmission, type SmtpSubmissionResult } from './smtp-submission';
import { inbound, printInbound, type InboundResult } from './inbound';
import { printWebhookDispatch, webhookDispatch, type WebhookDispatchResult } from './webhook-dispatch';
import { inspectBench, printInspectBench, type InspectBenchResult } from './inspect';
import { previewBench, printPreviewBench, type PreviewBenchResult } from './preview';
import { monthlyLimitBench, printMonthlyLimitBench, type MonthlyLimitBenchResult } from './monthly-limit';
import { acceptLoad, printAcceptLoad, type AcceptLoadResult } from './accept-load';
import { allowlistBench, printAllowlistBench, type AllowlistBenchResult } from './allowlist';
import { dmarcIngestBench, printDmarcIngest, type DmarcIngestResult } from './dmarc-ingest';
import { blocklistRunBench, printBlocklistRun, type BlocklistRunResult } from './blocklist-run';
import { placementPollBench, printPlacementPoll, type PlacementPollResult } from './placement-poll';
import { consolePages, printConsolePages, type ConsolePagesResult } from './console-pages';
import { consoleLogs, consoleWeight, printConsoleLogs, printConsoleWeight, type ConsoleLogsResult, type ConsoleWeightResult } from './console';

/** Share of all cores busy over `ms` (from the kernel's per-core counters): other work skews every figure. */
async function machineBusy(ms = 1000): Promise<number> {
  const sample = () => cpus().reduce((acc, c) => ({ idle: acc.idle + c.times.idle, total: acc.total + Object.values(c.times).reduce((a, b) => a + b, 0) }), { idle: 0, total: 0 });
  const a = sample();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = sample();
  return b.total > a.total ? 1 - (b.idle - a.idle) / (b.total - a.total) : 0;
}

async function main(): Promise<number> {
  const started = Date.now();
  const machine = { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' };
  const busyAtStart = await machineBusy();
  print(`mailplane benchmarks: node ${machine.node}, ${machine.platform}, ${machine.cpus} x ${machine.cpuModel}; CPU busy before starting: ${(busyAtStart * 100).toFixed(0)}%`);
  print();

  const failures: Array<{ benchmark: string; error: string }> = [];
  let cold: ColdStartResult | undefined;
  let overhead: RequestOverheadResult | undefined;
  let send: SendCpuResult | undefined;
  let ingest: EventIngestResult | undefined;
  let metrics: MetricsQueryResult | undefined;
  let dispatch: WebhookDispatchResult | undefined;
  let smtp: SmtpSubmissionResult | undefined;
  let lists: ListExpansionResult | undefined;
  let inboundResult: InboundResult | undefined;
  let inspection: InspectBenchResult | undefined;
  let preview: PreviewBenchResult | undefined;
  let monthlyLimit: MonthlyLimitBenchResult | undefined;
  let acceptLoadResult: AcceptLoadResult | undefined;
  let allowlist: AllowlistBenchResult | undefined;
  let dmarc: DmarcIngestResult | undefined;
  let blocklists: BlocklistRunResult | undefined;
  let placement: PlacementPollResult | undefined;
  let consoleResult: ConsoleWeightResult | undefined;
  let consoleLogsResult: ConsoleLogsResult | undefined;
  let consolePagesResult: ConsolePagesResult | undefined;
  const withProfile = !process.argv.includes('--no-profile');

  try {
    cold = await coldStart();
    printColdStart(cold);
  } catch (error) {
    failures.push({ benchmark: 'cold start', error: (error as Error).stack ?? String(error) });
  }
  try {
    overhead = await requestOverhead({ profile: withProfile });
    printRequestOverhead(overhead);
  } catch (error) {
    failures.push({ benchmark: 'request overhead', error: (error as Error).stack ?? String(error) });
  }
  try {
    send = await sendCpu({ profile: withProfile });
    printSendCpu(send);
  } catch (error) {
    failures.push({ benchmark: 'send handler CPU', error: (error as Error).stack ?? String(error) });
  }
  try {
    ingest = await eventIngest({ profile: withProfile });
    printEventIngest(ingest);
  } catch (error) {
    failures.push({ benchmark: 'event ingest', error: (error as Error).stack ?? String(error) });
  }
  try {
    metrics = await metricsQuery();
    printMetricsQuery(metrics);
  } catch (error) {
    failures.push({ benchmark: 'metrics query', error: (error as Error).stack ?? String(error) });
  }
  try {
    dispatch = await webhookDispatch();
    printWebhookDispatch(dispatch);
  } catch (error) {
    failures.push({ benchmark: 'webhook dispatch', error: (error as Error).stack ?? String(error) });
  }

  try {
    smtp = await smtpSubmission();
    printSmtpSubmission(smtp);
  } catch (error) {
    failures.push({ benchmark: 'smtp submission', error: (error as Error).stack ?? String(error) });
  }
  try {
    lists = await listExpansion();
    printListExpansion(lists);
  } catch (error) {
    failures.push({ benchmark: 'list expansion', error: (error as Error).stack ?? String(error) });
  }

  try {
    inboundResult = await inbound();
    printInbound(inboundResult);
  } catch (error) {
    failures.push({ benchmark: 'inbound', error: (error as Error).stack ?? String(error) });
  }

  try {
    inspection = await inspectBench();
    printInspectBench(inspection);
  } catch (error) {
    failures.push({ benchmark: 'inspect', error: (error as Error).stack ?? String(error) });
  }
  try {
    preview = await previewBench();
    printPreviewBench(preview);
  } catch (error) {
    failures.push({ benchmark: 'preview', error: (error as Error).stack ?? String(error) });
  }
  try {
    monthlyLimit = await monthlyLimitBench();
    printMonthlyLimitBench(monthlyLimit);
  } catch (error) {
    failures.push({ benchmark: 'monthly limit', error: (error as Error).stack ?? String(error) });
  }
  try {
    acceptLoadResult = await acceptLoad();
    printAcceptLoad(acceptLoadResult);
  } catch (error) {
    failures.push({ benchmark: 'accept load', error: (error as Error).stack ?? String(error) });
  }
  try {
    allowlist = await allowlistBench();
    printAllowlistBench(allowlist);
  } catch (error) {
    failures.push({ benchmark: 'allowlist', error: (error as Error).stack ?? String(error) });
  }
  try {
    dmarc = await dmarcIngestBench();
    printDmarcIngest(dmarc);
  } catch (error) {
    failures.push({ benchmark: 'dmarc ingestion', error: (error as Error).stack ?? String(error) });
  }
  try {
    blocklists = await blocklistRunBench();
    printBlocklistRun(blocklists);
  } catch (error) {
    failures.push({ benchmark: 'blocklist run', error: (error as Error).stack ?? String(error) });
  }
  try {
    placement = await placementPollBench();
    printPlacementPoll(placement);
  } catch (error) {
    failures.push({ benchmark: 'placement poll', error: (error as Error).stack ?? String(error) });
  }
  try {
    consoleResult = consoleWeight();
    printConsoleWeight(consoleResult);
  } catch (error) {
    failures.push({ benchmark: 'console weight', error: (error as Error).stack ?? String(error) });
  }
  try {
    consoleLogsResult = await consoleLogs();
    printConsoleLogs(consoleLogsResult);
  } catch (error) {
    failures.push({ benchmark: 'console logs page', error: (error as Error).stack ?? String(error) });
  }
  try {
    consolePagesResult = await consolePages();
    printConsolePages(consolePagesResult);
  } catch (error) {
    failures.push({ benchmark: 'console pages', error: (error as Error).stack ?? String(error) });
  }

  const checks: TargetCheck[] = [...(cold?.checks ?? []), ...(overhead?.checks ?? []), ...(send?.checks ?? []), ...(ingest?.checks ?? []), ...(metrics?.checks ?? []), ...(dispatch?.checks ?? []), ...(smtp?.checks ?? []), ...(lists?.checks ?? []), ...(inboundResult?.checks ?? []), ...(inspection?.checks ?? []), ...(preview?.checks ?? []), ...(monthlyLimit?.checks ?? []), ...(allowlist?.checks ?? []), ...(dmarc?.checks ?? []), ...(blocklists?.checks ?? []), ...(placement?.checks ?? []), ...(consoleResult?.checks ?? []), ...(consoleLogsResult?.checks ?? []), ...(consolePagesResult?.checks ?? [])];
  // A figure the issue asks only to report (beside its floor) has no target to meet.
  const targets = checks.filter((c) => c.target !== REPORTED);
  const passed = targets.filter((c) => c.pass).length;
  const seconds = (Date.now() - started) / 1000;
  print('== Summary ==');
  print();
  print(table([['benchmark', 'subject', 'ours', 'target', 'result'], ...checks.map((c) => [c.benchmark, c.subject, c.figure, c.target, c.target === REPORTED ? '' : c.pass ? 'PASS' : 'FAIL'])]));
  print();
  if (ingest) {
    print(
      `Event ingest ${fixed(ingest.ours.eventsPerSecond, 0)} events/s, batch p50 ${fixed(ingest.ours.batchP50Ms, 2)} ms / p99 ${fixed(ingest.ours.batchP99Ms, 2)} ms; ` +
        `raw PutItem floor at ${ratio(ingest.ratio)} of it, raw GetItem + PutItem peer at ${ratio(ingest.peerRatio)}.`,
    );
    print();
  }
  if (dispatch) {
    print(
      `Webhook dispatch ${fixed(dispatch.ours.deliveriesPerSecond, 0)} deliveries/s through fan-out, queue and worker; bare signed POSTs ${ratio(dispatch.ratio)} faster ` +
        `(CPU per delivery ${ratio(dispatch.cpuRatio)} theirs).`,
    );
    print();
  }
  for (const f of failures) print(`ERROR: ${f.benchmark} did not run: ${f.error}`);
  print(`${passed}/${targets.length} targets met${failures.length ? `, ${failures.length} benchmark(s) failed to run` : ''} (${seconds.toFixed(0)} s).`);
  if (busyAtStart > 0.2) print(`Note: ${(busyAtStart * 100).toFixed(0)}% of the CPU was busy with other work before the run; ratios are less reliable than usual.`);

  mkdirSync(OUT_DIR, { recursive: true });
  const file = join(OUT_DIR, 'results.json');
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), durationSeconds: seconds, machine: { ...machine, cpuBusyBeforeStart: busyAtStart, loadAverage: loadavg() }, summary: { passed, total: targets.length, checks }, failures, coldStart: cold, requestOverhead: overhead, sendCpu: send, eventIngest: ingest, metricsQuery: metrics, webhookDispatch: dispatch, smtpSubmission: smtp, listExpansion: lists, inbound: inboundResult, inspection, preview, monthlyLimit, acceptLoad: acceptLoadResult, allowlist, dmarcIngestion: dmarc, blocklistRun: blocklists, placementPoll: placement, console: consoleResult, consoleLogs: consoleLogsResult, consolePages: consolePagesResult }, null, 2)}\n`,
  );
  print(`Results: ${file}`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
