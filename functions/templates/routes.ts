import type { RouteSpec } from '../platform/http/route';

const area = 'templates';
const domainParam = 'domain';
const templates = '/v3/{domain}/templates';
const template = `${templates}/{name}`;
const versions = `${template}/versions`;
const version = `${versions}/{tag}`;

/** Stored templates and their versions (contract §11): reading needs `read`, any change `write`. */
export const templateRoutes = [
  { method: 'GET', path: templates, area, operation: 'listTemplates', access: 'read', domainParam },
  { method: 'POST', path: templates, area, operation: 'createTemplate', access: 'write', domainParam },
  { method: 'DELETE', path: templates, area, operation: 'deleteAllTemplates', access: 'write', domainParam },
  { method: 'GET', path: template, area, operation: 'getTemplate', access: 'read', domainParam },
  { method: 'PUT', path: template, area, operation: 'updateTemplate', access: 'write', domainParam },
  { method: 'DELETE', path: template, area, operation: 'deleteTemplate', access: 'write', domainParam },
  { method: 'GET', path: versions, area, operation: 'listVersions', access: 'read', domainParam },
  { method: 'POST', path: versions, area, operation: 'createVersion', access: 'write', domainParam },
  { method: 'GET', path: version, area, operation: 'getVersion', access: 'read', domainParam },
  { method: 'PUT', path: version, area, operation: 'updateVersion', access: 'write', domainParam },
  { method: 'DELETE', path: version, area, operation: 'deleteVersion', access: 'write', domainParam },
  { method: 'PUT', path: `${version}/copy/{new_tag}`, area, operation: 'copyVersion', access: 'write', domainParam },
] as const satisfies readonly RouteSpec[];
