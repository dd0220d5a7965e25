/**
 * The parts of Gmail Postmaster Tools API v2's resources the fetch reads (Google's REST reference:
 * QueryDomainStatsRequest/Response, DomainStat, StatisticValue, DomainComplianceStatus).
 */
export interface GoogleDate {
  year: number;
  month: number;
  day: number;
}

export interface MetricDefinition {
  /** Our name for the metric; Google echoes it in each DomainStat's `metric`. */
  name: string;
  baseMetric: { standardMetric: string };
  filter?: string;
}

export interface QueryDomainStatsRequest {
  metricDefinitions: MetricDefinition[];
  timeQuery: { dateRanges: { dateRanges: Array<{ start: GoogleDate; end: GoogleDate }> } };
  aggregationGranularity: 'DAILY' | 'OVERALL';
  pageSize?: number;
  pageToken?: string;
}

export interface StatisticValue {
  doubleValue?: number;
  floatValue?: number;
  /** int64, as JSON strings carry it. */
  intValue?: string;
  stringValue?: string;
  stringList?: { values?: string[] };
}

export interface DomainStat {
  name?: string;
  metric?: string;
  value?: StatisticValue;
  date?: GoogleDate;
}

export interface QueryDomainStatsResponse {
  domainStats?: DomainStat[];
  nextPageToken?: string;
}

export interface ComplianceVerdict {
  status?: { status?: string };
  reason?: string;
}

export interface DomainComplianceData {
  domainId?: string;
  rowData?: Array<{ requirement?: string; status?: { status?: string } }>;
  oneClickUnsubscribeVerdict?: ComplianceVerdict;
  honorUnsubscribeVerdict?: ComplianceVerdict;
}

export interface DomainComplianceStatus {
  name?: string;
  complianceData?: DomainComplianceData;
  subdomainComplianceData?: DomainComplianceData;
}
