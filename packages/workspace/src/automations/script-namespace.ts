import { codecsFor, type Namespace, type NamespaceCodec } from '@weft/namespace';
import type { Queryable } from '../db/driver.js';
import { loadCatalog } from '../schema/catalog.js';
import { catalogLookup } from '../schema/field-lookup.js';
import type { ServiceImpl, SVC_METHODS } from './script-runner.js';

// A script's `context.getService('fibery')` when the workspace speaks the real service's names
// (WEFT_NAMESPACE=fibery): a script written for the service passes `fibery/id` in its field lists
// and values, runs `fibery.entity/query` through executeSingleCommand and reads `fibery/id` back.
// Inside, the service speaks svc as everything does, so its calls are renamed at this edge, by
// the same codec the HTTP boundary uses (only names, never data), and so are its errors' texts.

type Method = (typeof SVC_METHODS)[number];
/** What each positional parameter of a method holds, where it holds a name. */
type Param = 'type' | 'field' | 'select' | 'values' | 'valuesList' | 'command' | undefined;

const PARAMS: Record<Method, Param[]> = {
  getEntityById: ['type', undefined, 'select'],
  getEntitiesByIds: ['type', undefined, 'select'],
  createEntity: ['type', 'values'],
  updateEntity: ['type', undefined, 'values'],
  addCollectionItem: ['type', undefined, 'field'],
  removeCollectionItem: ['type', undefined, 'field'],
  deleteEntity: ['type'],
  setState: ['type'],
  setStateToFinal: ['type'],
  assignUser: ['type'],
  unassignUser: ['type'],
  getDocumentContent: [],
  setDocumentContent: [],
  appendDocumentContent: [],
  addComment: ['type'],
  executeSingleCommand: ['command'],
  addFileFromUrl: [undefined, undefined, 'type'],
  graphql: [],
  executeAction: [],
  createEntityBatch: ['type', 'valuesList'],
  updateEntityBatch: ['type', 'valuesList'],
  deleteEntityBatch: ['type'],
  addCollectionItemBatch: ['type', 'field'],
  removeCollectionItemBatch: ['type', 'field'],
  getSchema: [],
};

/** The svc type of the entity (or entities) a method answers, from its svc-spelled params. */
const ANSWER_TYPE: Partial<Record<Method, (params: unknown[]) => string | undefined>> = {
  getEntityById: (p) => str(p[0]),
  getEntitiesByIds: (p) => str(p[0]),
  createEntity: (p) => str(p[0]),
  updateEntity: (p) => str(p[0]),
  addComment: () => 'comments/comment',
  addFileFromUrl: () => 'svc/file',
  createEntityBatch: (p) => str(p[0]),
  updateEntityBatch: (p) => str(p[0]),
};

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `svc` spoken as `namespace` to a script; the service itself when the namespace is svc. */
export function scriptServiceIn(namespace: Namespace, svc: ServiceImpl, q: Queryable): ServiceImpl {
  const codecs = codecsFor(namespace);
  if (!codecs) return svc;
  const out: ServiceImpl = {};
  for (const [method, params] of Object.entries(PARAMS) as [Method, Param[]][]) {
    const inner = svc[method];
    if (!inner) continue;
    out[method] = async (...given) => {
      const lookup = catalogLookup(await loadCatalog(q));
      const into = codecs.in.withLookup(lookup);
      const back = codecs.out.withLookup(lookup);
      const renamed = given.map((value, i) => renameParam(into, params[i], value, given));
      try {
        const answer = await inner(...renamed);
        if (method === 'executeSingleCommand' || method === 'getSchema') {
          const command = method === 'getSchema' ? { command: 'svc.schema/query', args: {} } : renamed[0];
          const outcome = back.results(command, { success: true, result: answer });
          return (outcome as { result: unknown }).result;
        }
        const typeOf = ANSWER_TYPE[method];
        if (!typeOf) return answer;
        const type = typeOf(renamed);
        return Array.isArray(answer)
          ? answer.map((row) => back.entity(type, row))
          : back.entity(type, answer);
      } catch (error) {
        throw error instanceof Error ? new Error(back.text(error.message)) : error;
      }
    };
  }
  return out;
}

function renameParam(into: NamespaceCodec, kind: Param, value: unknown, all: unknown[]): unknown {
  if (value === undefined || value === null) return value;
  switch (kind) {
    case 'type':
    case 'field':
      return into.name(value);
    case 'values':
      return into.entity(str(into.name(all[0])), value);
    case 'valuesList':
      return Array.isArray(value) ? value.map((v) => into.entity(str(into.name(all[0])), v)) : value;
    case 'select': {
      // a field list is a query's q/select: renamed by the codec's query rules, on a query of its own
      const query = { 'q/from': all[0], 'q/select': value };
      const [renamed] = into.commands([{ command: `${into.from}.entity/query`, args: { query } }]) as [
        { args: { query: { 'q/select': unknown } } },
      ];
      return renamed.args.query['q/select'];
    }
    case 'command':
      return into.commands(value);
    default:
      return value;
  }
}
