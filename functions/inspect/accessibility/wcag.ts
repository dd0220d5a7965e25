/**
 * WCAG 2.2 success criteria by number, with their official names (w3.org/TR/WCAG22), for the ones
 * axe-core's rules and our email rules are tagged with. A criterion missing here still shows, by
 * number alone.
 */
const SUCCESS_CRITERIA: Readonly<Record<string, string>> = {
  '1.1.1': 'Non-text Content',
  '1.2.1': 'Audio-only and Video-only (Prerecorded)',
  '1.2.2': 'Captions (Prerecorded)',
  '1.3.1': 'Info and Relationships',
  '1.3.2': 'Meaningful Sequence',
  '1.3.4': 'Orientation',
  '1.3.5': 'Identify Input Purpose',
  '1.4.1': 'Use of Color',
  '1.4.2': 'Audio Control',
  '1.4.3': 'Contrast (Minimum)',
  '1.4.4': 'Resize Text',
  '1.4.6': 'Contrast (Enhanced)',
  '1.4.12': 'Text Spacing',
  '2.1.1': 'Keyboard',
  '2.1.3': 'Keyboard (No Exception)',
  '2.2.1': 'Timing Adjustable',
  '2.2.2': 'Pause, Stop, Hide',
  '2.2.4': 'Interruptions',
  '2.4.1': 'Bypass Blocks',
  '2.4.2': 'Page Titled',
  '2.4.4': 'Link Purpose (In Context)',
  '2.4.6': 'Headings and Labels',
  '2.4.9': 'Link Purpose (Link Only)',
  '2.5.3': 'Label in Name',
  '2.5.8': 'Target Size (Minimum)',
  '3.1.1': 'Language of Page',
  '3.1.2': 'Language of Parts',
  '3.2.5': 'Change on Request',
  '3.3.2': 'Labels or Instructions',
  '4.1.1': 'Parsing',
  '4.1.2': 'Name, Role, Value',
};

const POUR = ['Perceivable', 'Operable', 'Understandable', 'Robust'];

const STANDARD_OF_TAG: Readonly<Record<string, string>> = {
  wcag2a: 'WCAG 2A',
  wcag2aa: 'WCAG 2AA',
  wcag2aaa: 'WCAG 2AAA',
  wcag21a: 'WCAG 2.1A',
  wcag21aa: 'WCAG 2.1AA',
  wcag22aa: 'WCAG 2.2AA',
  'best-practice': 'Best Practice',
};

/** `wcag1412` → `1.4.12`: the first two digits are principle and guideline, the rest the criterion. */
function criterionOf(tag: string): string | undefined {
  const digits = /^wcag(\d{3,4})$/.exec(tag)?.[1];
  return digits ? `${digits[0]}.${digits[1]}.${digits.slice(2)}` : undefined;
}

/** The contract's standards, compliance and POUR lists (§3) from a rule's tags. */
export function wcagOf(tags: readonly string[]): { standards: string[]; compliance: string[]; pour: string[] } {
  const standards = [...new Set(tags.map((t) => STANDARD_OF_TAG[t]).filter((s): s is string => !!s))];
  const criteria = [...new Set(tags.map(criterionOf).filter((c): c is string => !!c))];
  return {
    standards,
    compliance: criteria.map((c) => (SUCCESS_CRITERIA[c] ? `${c} ${SUCCESS_CRITERIA[c]}` : c)),
    pour: [...new Set(criteria.map((c) => POUR[Number(c[0]) - 1]).filter((p): p is string => !!p))],
  };
}
