import { Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { badRequest } from '../errors.js';
import { loadCatalog } from './catalog.js';
import { schemaObject } from './schema-object.js';

// GET /api/schema: the Schema object svc.schema/query answers, read with a GET as the service's
// own clients do (its MCP server, its n8n node). `with-soft-deleted` is accepted and changes
// nothing: the workspace deletes types and fields outright, so none is ever soft-deleted. The
// answer carries an ETag (the schema token): a client that sends it back in If-None-Match gets a
// 304 until the schema changes.

const Flag = z.enum(['true', 'false']).optional();
const SchemaQuery = z.object({ 'with-description': Flag, 'with-soft-deleted': Flag });

export function schemaRouter(driver: Driver): Router {
  const router = Router();
  router.get('/api/schema', async (req, res) => {
    const parsed = SchemaQuery.safeParse(req.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw badRequest(`${issue.path.join('.')} must be true or false`);
    }
    const withDescription = parsed.data['with-description'] === 'true';
    const catalog = await loadCatalog(driver);
    const etag = `"${catalog.token}${withDescription ? '-d' : ''}"`;
    res.set('etag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.json(schemaObject(catalog, principalOf(res), withDescription));
  });
  return router;
}
