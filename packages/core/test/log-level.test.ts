// WEFT_LOG_LEVEL: the request lines of a busy app (one per request, at info) can be turned off
// while warnings and errors still reach stderr; a misspelt level is refused, not ignored.
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { auth, createServer, defineApp, jsonLogger } from '../src/index.js';
import { logLevelFromEnv } from '../src/logging/logger.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

const app = defineApp({
  id: 'quiet',
  name: 'Quiet',
  ...descriptorBase,
  authentication: [auth.none()],
  sync: { types: { t: emptyType } },
});

function served(level: Parameters<typeof jsonLogger>[1]) {
  const lines: { level: string; msg?: string; status?: number }[] = [];
  const logger = jsonLogger((line) => lines.push(JSON.parse(line)), level);
  return { http: request(createServer(app, { logger, pageKeys: ['k'] })), lines };
}

describe('log level', () => {
  it('writes every request at info, only failures at warn, nothing when silent', async () => {
    const info = served('info');
    await info.http.get('/');
    await info.http.get('/no-such-path');
    expect(info.lines.map((l) => [l.level, l.status])).toEqual([
      ['info', 200],
      ['warn', 404],
    ]);

    const warn = served('warn');
    await warn.http.get('/');
    await warn.http.get('/no-such-path');
    expect(warn.lines.map((l) => [l.level, l.status])).toEqual([['warn', 404]]);

    const silent = served('silent');
    await silent.http.get('/no-such-path');
    expect(silent.lines).toEqual([]);
  });

  it('reads WEFT_LOG_LEVEL, info by default, and refuses an unknown level', () => {
    expect(logLevelFromEnv({})).toBe('info');
    expect(logLevelFromEnv({ WEFT_LOG_LEVEL: ' WARN ' })).toBe('warn');
    expect(logLevelFromEnv({ WEFT_LOG_LEVEL: 'silent' })).toBe('silent');
    expect(() => logLevelFromEnv({ WEFT_LOG_LEVEL: 'verbose' })).toThrow(
      /WEFT_LOG_LEVEL must be one of info, warn, error, silent \(got "verbose"\)/,
    );
  });
});
