import { BadRequestError, InvalidAccountError } from '../../errors/errors.js';
import { PROTOCOL_PATHS, validateRequest } from '../../protocol/index.js';
import { describeIssue } from '../../startup/describe-issue.js';
import { handle } from '../handle.js';
import { withLazySignal } from '../request-context.js';
import type { RouteKit } from './route-kit.js';

/** `POST /validate`: 200 `{name, ...fields to merge}`, or 401 for an invalid account. */
export function mountValidate({ router, app, options }: RouteKit): void {
  router.post(
    PROTOCOL_PATHS.validate,
    handle(app, options, 'validate', validateRequest, async (body, scope) => {
      const auth = app.auths.get(body.id);
      if (!auth) {
        const known = [...app.auths.keys()].map((id) => `"${id}"`).join(', ');
        throw new BadRequestError(`Unknown authentication id "${body.id}"; this app has ${known}`);
      }
      let account: Record<string, unknown> = body.fields;
      if (auth.accountSchema) {
        const parsed = auth.accountSchema.safeParse(body.fields);
        if (!parsed.success)
          throw new InvalidAccountError(describeIssue(parsed.error.issues[0]!, 'Account field '));
        account = parsed.data;
      }
      const validate = auth.definition.validate;
      const result = validate
        ? await validate(account, withLazySignal(scope, { log: scope.log }))
        : { name: auth.definition.name };
      if (!result || typeof result.name !== 'string') {
        throw new Error(`validate of authentication "${body.id}" returned no \`name\``);
      }
      return result;
    }),
  );
}
