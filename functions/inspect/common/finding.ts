/**
 * One rule's verdict on a link or an image (contract §1 and §2): `id` the rule, `rule` its display
 * name, `impact` on failures only, `details` small objects with the figures behind the verdict.
 */
export interface Finding {
  id: string;
  rule: string;
  description: string;
  impact?: 'minor' | 'moderate' | 'serious' | 'critical';
  recommendation?: string;
  details: Array<Record<string, unknown>>;
}

/** What a checked link or image shares (contract §1, §2): where it sits in the HTML, and its findings in three lists. */
export interface PlacedFindings {
  line: number | null;
  column: number | null;
  selector: string | null;
  absolute_index: number | null;
  passes: Finding[];
  failures: Finding[];
  informational: Finding[];
}

/** A result's findings, sorted into the three lists the contract shows. */
export class Findings {
  readonly passes: Finding[] = [];
  readonly failures: Finding[] = [];
  readonly informational: Finding[] = [];

  pass(id: string, rule: string, description: string, details: Array<Record<string, unknown>> = []): void {
    this.passes.push({ id, rule, description, details });
  }

  fail(id: string, rule: string, impact: NonNullable<Finding['impact']>, description: string, recommendation: string, details: Array<Record<string, unknown>> = []): void {
    this.failures.push({ id, rule, description, impact, recommendation, details });
  }

  inform(id: string, rule: string, description: string, details: Array<Record<string, unknown>> = []): void {
    this.informational.push({ id, rule, description, details });
  }
}

/**
 * A link or image is Invalid when something breaks it for readers (a serious or critical failure);
 * minor and moderate failures (plain http, a slow answer) are listed but leave it Valid.
 */
export function isBroken(findings: Pick<Findings, 'failures'>): boolean {
  return findings.failures.some((f) => f.impact === 'serious' || f.impact === 'critical');
}
