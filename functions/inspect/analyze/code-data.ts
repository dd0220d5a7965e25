/**
 * What the code analysis API needs of caniemail's data set (about 1 MB of JSON), required on first
 * use by its handler: a side bundle beside index.js in Lambda (lib/side-bundles.ts), so listing,
 * creating and deleting tests never parse it.
 */
export { dictionary } from './caniemail-data';
export { presentCodeResult, resolveInstance } from './code-result';
