import { Router } from 'express';
import { html } from './html.js';
import { layout } from './layout.js';
import { sendPage as send } from './send-page.js';
import { sessionOf } from './session.js';
import { hostCall } from './source-forms.js';

// Removing a source from the page: a confirm page of its own (no script needed), then the host's
// own DELETE /api/host/sources/<id> with the session's token, so the host's checks apply (admins
// only) and it deletes the app's webhook as it does through the API.

export function sourceRemoval(): Router {
  const router = Router();
  const tokenOf = (res: Parameters<typeof sessionOf>[0]) => sessionOf(res).pageSession.token;
  const path = (id: string) => `/api/host/sources/${encodeURIComponent(id)}`;
  const failed = (message: unknown) =>
    layout(
      'Remove a source',
      html`<p class="error">${String(message ?? 'No such source')}</p><p><a href="/ui">Overview</a></p>`,
    );

  router.get('/ui/sources/:id/remove', async (req, res) => {
    const answer = await hostCall(req, tokenOf(res), 'GET', path(req.params.id));
    if (answer.status !== 200) {
      res.status(answer.status >= 400 && answer.status < 500 ? answer.status : 502);
      return send(res, failed(answer.body.message));
    }
    const s = answer.body;
    send(
      res,
      layout(
        'Remove a source',
        html`<p>Remove <strong>${s.name}</strong> (<code>${s.id}</code>, ${s.url})? Its syncs stop and its
app webhook is deleted; the data it synced stays in the workspace.</p>
<form method="post" action="/ui/sources/${s.id}/remove" id="confirm-remove"><button>Remove</button> <a href="/ui">Cancel</a></form>`,
      ),
    );
  });

  router.post('/ui/sources/:id/remove', async (req, res) => {
    const answer = await hostCall(req, tokenOf(res), 'DELETE', path(req.params.id));
    if (answer.status === 204 || answer.status === 200) return res.redirect(303, '/ui');
    res.status(answer.status >= 400 && answer.status < 500 ? answer.status : 502);
    send(res, failed(answer.body.message));
  });
  return router;
}
