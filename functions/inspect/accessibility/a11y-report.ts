/** The shapes of an accessibility report (contract §3). */

export interface A11yInstance {
  /** Fix any one of these. */
  correctAny: string[];
  /** Fix all of these. */
  correctAll: string[];
  snippet: string;
  target: string[];
  lineNumber: number | null;
  absoluteIndex: number | null;
}

export interface A11yRule {
  /** The rule's display name (`image-alt` → "Image Alt"). */
  rule: string;
  /** axe's rule id, or ours (`email-...`), so a finding can be looked up. */
  id: string;
  impact?: 'minor' | 'moderate' | 'serious' | 'critical';
  description: string;
  standards: string[];
  pour: string[];
  compliance: string[];
  instances: A11yInstance[];
  /** Instances are listed up to MAX_INSTANCES per rule; this is how many there were (our addition). */
  instance_count: number;
}

export interface A11yReport {
  /** Rules evaluated: passing, failing, needing review and not applicable. */
  checks: number;
  passes: A11yRule[];
  failures: A11yRule[];
  needs_review: A11yRule[];
}

/** Almost every real email fails some rule many times over (contract §6.4): list this many, count all. */
export const MAX_INSTANCES = 50;

/** `image-alt` → "Image Alt", `aria-allowed-attr` → "Aria Allowed Attr". */
export const titleOf = (id: string) => id.split('-').map((word) => (word ? word[0]!.toUpperCase() + word.slice(1) : word)).join(' ');
