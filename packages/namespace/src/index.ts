export {
  codecsFor,
  type FieldInfo,
  type FieldLookup,
  NamespaceCodec,
  SVC_PRIMITIVE_TYPES,
} from './codec.js';
export {
  DEFAULT_NAMESPACE,
  NAMESPACES,
  type Namespace,
  NamespaceSchema,
  namespaceFromEnv,
  parseNamespace,
} from './namespace.js';
