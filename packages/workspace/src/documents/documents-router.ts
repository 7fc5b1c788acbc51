import { Router } from 'express';
import type { Driver } from '../db/driver.js';
import { badRequest } from '../errors.js';
import { parseFormat, readDocument, writeDocument } from './document-store.js';

export function documentsRouter(driver: Driver): Router {
  const router = Router();
  router.get('/api/documents/:secret', async (req, res) => {
    res.json(await readDocument(driver, req.params.secret, parseFormat(req.query.format)));
  });
  router.put('/api/documents/:secret', async (req, res) => {
    await writeDocument(driver, req.params.secret, req.body?.content, parseFormat(req.query.format));
    res.json({});
  });
  router.post('/api/documents/commands', async (req, res) => {
    const format = parseFormat(req.query.format);
    const { command, args } = (req.body ?? {}) as { command?: unknown; args?: unknown };
    if (!Array.isArray(args)) throw badRequest('args must be an array');
    if (command === 'get-documents') {
      const docs = [];
      for (const a of args)
        docs.push(await readDocument(driver, (a as { secret?: unknown })?.secret, format, 'null'));
      res.json(docs);
      return;
    }
    if (command === 'create-or-update-documents') {
      await driver.transaction(async (tx) => {
        for (const a of args) {
          const d = (a ?? {}) as { secret?: unknown; content?: unknown };
          await writeDocument(tx, d.secret, d.content, format);
        }
      });
      res.json({});
      return;
    }
    throw badRequest('command must be get-documents or create-or-update-documents');
  });
  return router;
}
