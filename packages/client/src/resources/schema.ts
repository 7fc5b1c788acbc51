// Schema management: the single commands, and the service's multi-step flows (a type with its
// five mandatory fields and mixins, a relation, a single-select, a rich-text field) each as one
// call that sends one atomic batch.
import { randomUUID } from 'node:crypto';
import type { Command } from '../commands/command.js';

export type Meta = Record<string, unknown>;

export interface FieldDefinition {
  /** `<app>/<name>`. */
  name: string;
  /** A primitive type (`svc/text`, ...), a related type's name, an enum type, or the document type. */
  type: string;
  meta?: Meta;
  id?: string;
}

/** Mixins by their service names, with short aliases. */
export const MIXINS = {
  rank: 'svc/rank-mixin',
  assignments: 'assignments/assignments-mixin',
  files: 'Files/Files-mixin',
  workflow: 'workflow/workflow',
  comments: 'comments/comments-mixin',
} as const;
export type MixinName = keyof typeof MIXINS | (string & {});

export interface CreateTypeInput {
  /** `<app>/<name>`. */
  name: string;
  id?: string;
  /** Name of the title field (`<app>/name` by default). */
  titleField?: string;
  fields?: FieldDefinition[];
  domain?: boolean;
  secured?: boolean;
  color?: string;
  /** Mixins to install in the same batch: `['files', 'comments']` or full names. */
  mixins?: MixinName[];
}

export const DOCUMENT_TYPE = 'Collaboration~Documents/Document';
export const DOCUMENT_SECRET = 'Collaboration~Documents/secret';

/** The five fields every fully functional type has. */
export function mandatoryFields(typeName: string, titleField?: string): FieldDefinition[] {
  const app = typeName.slice(0, typeName.indexOf('/'));
  return [
    {
      name: 'svc/id',
      type: 'svc/uuid',
      meta: { 'svc/id?': true, 'svc/readonly?': true, 'svc/secured?': false },
    },
    { name: 'svc/public-id', type: 'svc/text', meta: { 'svc/public-id?': true, 'svc/readonly?': true } },
    {
      name: 'svc/creation-date',
      type: 'svc/date-time',
      meta: { 'svc/creation-date?': true, 'svc/readonly?': true, 'svc/default-value': '$now' },
    },
    {
      name: 'svc/modification-date',
      type: 'svc/date-time',
      meta: {
        'svc/modification-date?': true,
        'svc/required?': true,
        'svc/readonly?': true,
        'svc/default-value': '$now',
      },
    },
    { name: titleField ?? `${app}/name`, type: 'svc/text', meta: { 'ui/title?': true } },
  ];
}

function wireField(f: FieldDefinition): Record<string, unknown> {
  return {
    'svc/name': f.name,
    'svc/type': f.type,
    'svc/meta': f.meta ?? {},
    ...(f.id ? { 'svc/id': f.id } : {}),
  };
}

export function createTypeCommands(input: CreateTypeInput): Command[] {
  const mandatory = mandatoryFields(input.name, input.titleField);
  const extra = (input.fields ?? []).filter((f) => !mandatory.some((m) => m.name === f.name));
  const meta: Meta = { 'svc/domain?': input.domain ?? false };
  if (input.secured !== undefined) meta['svc/secured?'] = input.secured;
  if (input.color !== undefined) meta['ui/color'] = input.color;
  const commands: Command[] = [
    {
      command: 'schema.type/create',
      args: {
        'svc/name': input.name,
        ...(input.id ? { 'svc/id': input.id } : {}),
        'svc/meta': meta,
        'svc/fields': [...mandatory, ...extra].map(wireField),
      },
    },
  ];
  if (input.mixins && input.mixins.length > 0) {
    commands.push({
      command: 'svc.app/install-mixins',
      args: { types: { [input.name]: input.mixins.map((m) => MIXINS[m as keyof typeof MIXINS] ?? m) } },
    });
  }
  return commands;
}

export interface RelationSide {
  /** The type holding this side's field. */
  type: string;
  /** The field's name on that type. */
  field: string;
  /** true: this side holds many (a collection field). */
  many?: boolean;
  meta?: Meta;
}

/** A relation: two fields, one on each type, sharing one `svc/relation` id. */
export function relationCommands(a: RelationSide, b: RelationSide, relationId: string): Command[] {
  const side = (self: RelationSide, other: RelationSide): Command => ({
    command: 'schema.field/create',
    args: {
      'svc/holder-type': self.type,
      'svc/name': self.field,
      'svc/type': other.type,
      'svc/meta': {
        ...self.meta,
        'svc/relation': relationId,
        ...(self.many ? { 'svc/collection?': true } : {}),
      },
    },
  });
  return [side(a, b), side(b, a)];
}

export interface SingleSelectInput {
  holderType: string;
  /** `<app>/<name>` of the field. */
  name: string;
  /** Options in order; each gets a uuid unless given one. */
  options: (string | { name: string; id?: string })[];
  /** Name of the option new entities get. */
  default?: string;
  required?: boolean;
  meta?: Meta;
}

export interface SingleSelectPlan {
  enumType: string;
  options: { name: string; id: string; rank: number }[];
  commands: Command[];
}

/** The enum type name the service derives: `<field>_<holder type>`. */
export function enumTypeName(field: string, holderType: string): string {
  return `${field}_${holderType}`;
}

export function singleSelectCommands(input: SingleSelectInput): SingleSelectPlan {
  const enumType = enumTypeName(input.name, input.holderType);
  const options = input.options.map((o, rank) => {
    const option = typeof o === 'string' ? { name: o } : o;
    return { name: option.name, id: option.id ?? randomUUID(), rank };
  });
  const commands: Command[] = [
    { command: 'schema.enum/create', args: { 'svc/name': enumType } },
    {
      command: 'schema.field/create',
      args: {
        'svc/holder-type': input.holderType,
        'svc/name': input.name,
        'svc/type': enumType,
        'svc/meta': input.meta ?? {},
      },
    },
    ...options.map(
      (o): Command => ({
        command: 'svc.entity/create',
        args: { type: enumType, entity: { 'svc/id': o.id, 'enum/name': o.name, 'svc/rank': o.rank } },
      }),
    ),
  ];
  if (input.default !== undefined) {
    const chosen = options.find((o) => o.name === input.default);
    if (!chosen) throw new RangeError(`default ${JSON.stringify(input.default)} is not one of the options`);
    commands.push(setMeta(input.holderType, input.name, 'svc/default-value', { 'svc/id': chosen.id }));
  }
  if (input.required) commands.push(setMeta(input.holderType, input.name, 'svc/required?', true));
  return { enumType, options, commands };
}

export function setMeta(holderType: string, name: string, key: string, value: unknown): Command {
  return { command: 'schema.field/set-meta', args: { 'holder-type': holderType, name, key, value } };
}

export function richTextCommand(holderType: string, name: string, meta: Meta = {}): Command {
  return {
    command: 'schema.field/create',
    args: {
      'svc/holder-type': holderType,
      'svc/name': name,
      'svc/type': DOCUMENT_TYPE,
      'svc/meta': { ...meta, 'svc/entity-component?': true },
    },
  };
}
