import { logger } from '../../../functions/platform/logger';

const LEVEL_VARIABLES = ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL', '_X_AMZN_TRACE_ID'];
const saved = Object.fromEntries(LEVEL_VARIABLES.map((name) => [name, process.env[name]]));
let lines: Array<{ stream: 'stdout' | 'stderr'; entry: Record<string, unknown> }>;

beforeEach(() => {
  lines = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push({ stream, entry: JSON.parse(String(chunk)) as Record<string, unknown> });
      return true;
    });
  }
  for (const name of LEVEL_VARIABLES) delete process.env[name];
});

afterEach(() => {
  jest.restoreAllMocks();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('a line is Powertools’ default JSON: level, message, timestamp, service, sampling rate, trace id, then the attributes', () => {
  process.env['_X_AMZN_TRACE_ID'] = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
  logger.info('request', { requestId: 'r1', route: 'GET /v3/domains', status: 200, absent: undefined, empty: '', none: null, zero: 0 });
  expect(lines).toEqual([{ stream: 'stdout', entry: expect.any(Object) }]);
  const { entry } = lines[0]!;
  expect(Object.keys(entry)).toEqual(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id', 'requestId', 'route', 'status', 'zero']);
  expect(entry).toMatchObject({ level: 'INFO', message: 'request', service: 'mailplane', sampling_rate: 0, xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793', status: 200, zero: 0 });
  expect(new Date(entry['timestamp'] as string).toISOString()).toBe(entry['timestamp']);
});

test('errors are written with name, location, message, stack and cause, to stderr', () => {
  const error = Object.assign(new TypeError('boom', { cause: new Error('root') }), { code: 'E_BOOM' });
  logger.error('unhandled error', { error, big: 10n });
  expect(lines).toHaveLength(1);
  expect(lines[0]!.stream).toBe('stderr');
  const logged = lines[0]!.entry['error'] as Record<string, unknown>;
  expect(logged).toMatchObject({ name: 'TypeError', message: 'boom', stack: error.stack, code: 'E_BOOM', cause: { name: 'Error', message: 'root' } });
  expect(logged['location']).toMatch(/logger\.test\.ts:\d+$/);
  expect(lines[0]!.entry['big']).toBe('10');
});

test('the level comes from POWERTOOLS_LOG_LEVEL or LOG_LEVEL, never below AWS_LAMBDA_LOG_LEVEL', () => {
  const levelsLogged = () => {
    lines = [];
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    return lines.map((l) => l.entry['level']);
  };
  expect(levelsLogged()).toEqual(['INFO', 'WARN', 'ERROR']);
  process.env['LOG_LEVEL'] = 'ERROR';
  expect(levelsLogged()).toEqual(['ERROR']);
  process.env['POWERTOOLS_LOG_LEVEL'] = 'warn';
  expect(levelsLogged()).toEqual(['WARN', 'ERROR']);
  process.env['POWERTOOLS_LOG_LEVEL'] = 'DEBUG';
  process.env['AWS_LAMBDA_LOG_LEVEL'] = 'WARN';
  expect(levelsLogged()).toEqual(['WARN', 'ERROR']);
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  expect(levelsLogged()).toEqual([]);
});
