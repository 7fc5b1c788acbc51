import { BadRequestError, NotFoundError } from '../../errors/errors.js';
import { clip } from '../../logging/clip.js';
import { PROTOCOL_PATHS, executeRequest } from '../../protocol/index.js';
import { checkAccount } from '../boundary.js';
import { handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/**
 * `POST /api/v1/automations/action/execute`: `{}` with 200 on success; a failure is an error
 * status with `{message}`, never a 2xx.
 */
export function mountExecute({ router, app, options }: RouteKit): void {
  const actions = app.definition.actions;
  if (!actions) return;
  router.post(
    PROTOCOL_PATHS.execute,
    handle(app, options, 'action/execute', executeRequest, async (body, scope) => {
      const id = body.action.action;
      const action = Object.hasOwn(actions, id) ? actions[id] : undefined;
      if (!action) throw new NotFoundError(`Unknown action "${clip(id)}"`);
      const account = checkAccount(app, body.account);
      const given = body.action.args ?? {};
      const args: Record<string, string> = {};
      for (const [argId, arg] of Object.entries(action.args)) {
        const value = Object.hasOwn(given, argId) ? given[argId] : undefined;
        if (value === undefined || value === null || value === '') {
          if (!arg.optional) throw new BadRequestError(`Argument "${argId}" of action "${id}" is required`);
          continue;
        }
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
          throw new BadRequestError(`Argument "${argId}" of action "${id}" must be text`);
        }
        args[argId] = String(value);
      }
      await action.run({ account, args, signal: scope.signal, log: scope.log } as Parameters<
        typeof action.run
      >[0]);
      return {};
    }),
  );
}
