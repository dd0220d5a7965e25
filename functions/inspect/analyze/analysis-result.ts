import type { StoredFeature } from './code-result';

/** What a version's run stores: its final status and the features found. */
export interface AnalysisResult {
  status: 'Completed' | 'Failed';
  features: StoredFeature[];
  error?: string;
}
