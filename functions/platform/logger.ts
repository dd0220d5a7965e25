import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per process. Secrets never reach it: the pipeline logs the method,
 * route and status, never headers or bodies.
 */
export const logger = new Logger({ serviceName: 'mailplane' });
