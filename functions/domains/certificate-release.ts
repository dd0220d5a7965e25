/**
 * Releasing a tracking certificate, as domains.ts requires it when a domain that has one is deleted
 * or its tracking host moves. In the domains API Lambda this is a bundle of its own beside index.js
 * (lib/side-bundles.ts): the Step Functions client, which the area's other routes never use. Run
 * from source, or bundled into another Lambda, it is this module.
 */
export { releaseCertificate } from '../certificates/workflow';
