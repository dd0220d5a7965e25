import { architectureReport } from '../../scripts/architecture-report';

// The layering rules of docs/architecture.md, on the whole import graph of functions/ and lib/
// (eslint.config.mjs holds the ground-floor rule per file; this sees require() and import() too).
// `npx tsx scripts/architecture-report.ts` prints the same figures with their details.
const report = architectureReport();

it('finds the source it measures', () => {
  expect(report.files).toBeGreaterThan(400);
});

it('has no import circle in functions/ or lib/', () => {
  expect(report.circles).toEqual([]);
});

it('has functions/platform/ and functions/data/ import no area', () => {
  expect(report.groundFloorImports).toEqual([]);
});

it("has no file spell a table key outside its entity's store", () => {
  expect(report.keySpellings).toEqual([]);
});
