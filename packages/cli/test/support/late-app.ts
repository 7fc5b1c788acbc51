// An app module that does not listen until a file appears: the dev-boot tests create the file
// once they have seen what weft dev must do before the app answers (start the workspace, make
// its database), so a weft dev that waited for the app first would never get there.

/** The source of the app module; it listens once the file `go` exists. */
export const lateAppSource = (go: string) => `import { existsSync } from 'node:fs';
import { auth, defineApp, field, startServer } from '@weft/core';

while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 50));
const app = defineApp({
  id: 'late',
  name: 'Late',
  version: '1.0.0',
  description: 'an app that listens once the test says so',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          yield { id: 'i1', name: 'one' };
        },
      },
    },
  },
});
await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;
