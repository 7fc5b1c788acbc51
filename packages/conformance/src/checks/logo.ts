import { appRequests } from '@weft/sync-engine';
import type { Context } from '../context.js';
import { describeAnswer } from '../http.js';

/**
 * GET /logo is optional: no logo, an error or a hang is only a warning (the service shows a
 * default logo). But a 200 that is not `image/svg+xml` fails: the service takes a 200 as the
 * logo and shows a broken image.
 */
export async function checkLogo(ctx: Context): Promise<void> {
  const ex = await ctx.send(appRequests.logo(), { skipInspection: true });
  const status = ex.status;
  if (ex.failure) {
    ctx.warn('logo.response', { reason: `${ex.failure}; the service shows a default logo`, exchange: ex });
  } else if (status === 200 && /image\/svg\+xml/i.test(ex.contentType ?? '')) {
    ctx.pass('logo.response', { reason: 'an SVG image' });
  } else if (status === 200) {
    ctx.fail('logo.response', {
      reason: `HTTP 200 with content type ${ex.contentType ?? '(none)'}; a 200 logo must be image/svg+xml — the service would show a broken image (answer 204 when there is no SVG)`,
      exchange: ex,
    });
  } else if (status === 204) {
    ctx.pass('logo.response', { reason: '204: no logo' });
  } else if ((status === 302 || status === 301 || status === 307 || status === 308) && ex.location) {
    ctx.pass('logo.response', { reason: `redirect to ${ex.location}` });
  } else {
    const type = ex.contentType ? ` (${ex.contentType})` : '';
    ctx.warn('logo.response', {
      reason: `${describeAnswer(ex)}${type}; expected 200 image/svg+xml, 204 or 302 with Location — the service shows a default logo`,
      exchange: ex,
    });
  }
}
