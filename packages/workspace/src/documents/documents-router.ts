import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { badRequest } from '../errors.js';
import { isUuid } from '../schema/values.js';
import { assertDocumentAccess } from './document-access.js';
import {
  appendDocument,
  parseFormat,
  readDocument,
  writeDocument,
  writeDocuments,
} from './document-store.js';

/** The secrets among `values` that are well-formed (the others fail later with a 400). */
const secretsOf = (values: unknown[]) => values.filter(isUuid);

export function documentsRouter(driver: Driver): Router {
  const router = Router();
  router.get('/api/documents/:secret', async (req, res) => {
    const format = parseFormat(req.query.format);
    await assertDocumentAccess(driver, principalOf(res), secretsOf([req.params.secret]));
    res.json(await readDocument(driver, req.params.secret, format));
  });
  router.put('/api/documents/:secret', async (req, res) => {
    // The format in the query, else in the body ({content, format}, as the service's own page
    // sends it), else Markdown.
    const format = parseFormat(req.query.format ?? req.body?.format);
    await driver.transaction(async (tx) => {
      await assertDocumentAccess(tx, principalOf(res), secretsOf([req.params.secret]));
      await writeDocument(tx, req.params.secret, req.body?.content, format);
    });
    // As the service answers it (a capture of its own page's request shows `true`), and as its
    // document commands are answered.
    res.json(true);
  });
  router.post('/api/documents/commands', async (req, res) => {
    const format = parseFormat(req.query.format);
    const { command, args: given } = (req.body ?? {}) as { command?: unknown; args?: unknown };
    if (!Array.isArray(given)) throw badRequest('args must be an array');
    // A document named by its bare secret is {secret}: a TypeScript client for the service types
    // get-documents' args as a list of secrets, and another passes its caller's list through.
    const args =
      command === 'get-documents' ? given.map((a) => (typeof a === 'string' ? { secret: a } : a)) : given;
    const secrets = secretsOf(args.map((a) => (a as { secret?: unknown } | null)?.secret));
    if (command === 'get-documents') {
      await assertDocumentAccess(driver, principalOf(res), secrets);
      const docs = [];
      for (const a of args)
        docs.push(await readDocument(driver, (a as { secret?: unknown })?.secret, format, 'null'));
      res.json(docs);
      return;
    }
    if (command === 'create-or-update-documents' || command === 'create-or-append-documents') {
      const writes = args.map((a) => {
        const d = (a ?? {}) as { secret?: unknown; content?: unknown };
        return { secret: d.secret, content: d.content, format };
      });
      await driver.transaction(async (tx) => {
        await assertDocumentAccess(tx, principalOf(res), secrets);
        if (command === 'create-or-update-documents') await writeDocuments(tx, writes);
        // each append reads the text the one before it left
        else for (const w of writes) await appendDocument(tx, w.secret, w.content, format);
      });
      // The service answers a successful write `true` (its MCP server checks for exactly that).
      res.json(true);
      return;
    }
    throw badRequest(
      'command must be get-documents, create-or-update-documents or create-or-append-documents',
    );
  });
  return router;
}
