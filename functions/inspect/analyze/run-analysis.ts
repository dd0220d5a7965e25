import { readResult } from '../common/inspect-store';
import type { TestRunner } from '../common/run-outcome';
import { htmlOfStoredSource } from '../common/fetch-html';
import type { StoredSource } from '../common/source-input';
import { buildFeatures, carryResolved } from './code-result';
import { detectFeatures } from './feature-detector';
import type { AnalysisResult } from './analysis-result';

/**
 * One version: the features of its HTML with their instances. Instances the user marked resolved in
 * the version before keep that mark when they are still where they were (same feature, line, column).
 */
export const runAnalysis: TestRunner = async (test, input, job) => {
  const features = buildFeatures(detectFeatures(await htmlOfStoredSource(input as StoredSource)));
  const previous = job.run > 1 ? await readResult<AnalysisResult>(test, job.run - 1) : undefined;
  const result: AnalysisResult = { status: 'Completed', features: previous ? carryResolved(previous.features, features) : features };
  return { status: 'Completed', result, summary: { features: features.length } };
};
