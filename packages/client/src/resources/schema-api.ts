import { randomUUID } from 'node:crypto';
import type { Command } from '../commands/command.js';
import { settle } from '../commands/command.js';
import { unwrapInner } from '../commands/explicit-batch.js';
import type { ClientContext } from './context.js';
import {
  type CreateTypeInput,
  createTypeCommands,
  type FieldDefinition,
  type Meta,
  MIXINS,
  type MixinName,
  type RelationSide,
  relationCommands,
  richTextCommand,
  type SingleSelectInput,
  setMeta,
  singleSelectCommands,
} from './schema.js';

/** The schema as `svc.schema/query` returns it. */
export interface Schema {
  'svc/id': string;
  'svc/types': SchemaType[];
  'svc/meta': Record<string, unknown>;
}
export interface SchemaType {
  'svc/name': string;
  'svc/id'?: string;
  'svc/fields': SchemaField[];
  'svc/meta'?: Record<string, unknown>;
  'svc/description'?: string;
}
export interface SchemaField {
  'svc/name': string;
  'svc/type': string;
  'svc/meta'?: Record<string, unknown>;
  'svc/id'?: string;
}

export function schemaApi(ctx: ClientContext) {
  const one = (command: string, args: Record<string, unknown>) => ctx.channel.run({ command, args });
  /** Several schema/entity commands as one atomic `svc.command/batch`. */
  async function atomic(commands: Command[]): Promise<unknown[]> {
    const batch: Command = { command: 'svc.command/batch', args: { commands } };
    const [element] = await ctx.channel.send([batch]);
    return unwrapInner(settle(element, batch, 0));
  }
  return {
    query(options: { withDescription?: boolean } = {}): Promise<Schema> {
      return one(
        'svc.schema/query',
        options.withDescription ? { 'with-description?': true } : {},
      ) as Promise<Schema>;
    },
    /** A type with its five mandatory fields, extra fields and mixins, in one atomic batch. */
    async createType(input: CreateTypeInput): Promise<void> {
      await atomic(createTypeCommands(input));
    },
    async installMixins(types: Record<string, MixinName[]>): Promise<void> {
      const full = Object.fromEntries(
        Object.entries(types).map(([t, ms]) => [t, ms.map((m) => MIXINS[m as keyof typeof MIXINS] ?? m)]),
      );
      await one('svc.app/install-mixins', { types: full });
    },
    async renameType(from: string, to: string): Promise<void> {
      await one('schema.type/rename', { 'from-name': from, 'to-name': to });
    },
    async deleteType(
      name: string,
      options: { deleteEntities?: boolean; deleteRelatedFields?: boolean } = {},
    ) {
      await one('schema.type/delete', {
        name,
        'delete-entities?': options.deleteEntities ?? false,
        'delete-related-fields?': options.deleteRelatedFields ?? false,
      });
    },
    async createField(holderType: string, field: FieldDefinition): Promise<void> {
      await one('schema.field/create', {
        'svc/holder-type': holderType,
        'svc/name': field.name,
        'svc/type': field.type,
        'svc/meta': field.meta ?? {},
      });
    },
    async renameField(holderType: string, from: string, to: string): Promise<void> {
      await one('schema.field/rename', { 'holder-type': holderType, 'from-name': from, 'to-name': to });
    },
    async deleteField(
      holderType: string,
      name: string,
      options: { deleteValues?: boolean } = {},
    ): Promise<void> {
      await one('schema.field/delete', {
        'holder-type': holderType,
        name,
        'delete-values?': options.deleteValues ?? false,
      });
    },
    async setFieldMeta(holderType: string, name: string, key: string, value: unknown): Promise<void> {
      const command = setMeta(holderType, name, key, value);
      await one(command.command, command.args!);
    },
    /** Both fields of a relation, sharing one new relation id; resolves to that id. */
    async createRelation(a: RelationSide, b: RelationSide): Promise<string> {
      const relationId = randomUUID();
      await atomic(relationCommands(a, b, relationId));
      return relationId;
    },
    /** A single-select field with its options (and default, required), as one atomic batch. */
    async createSingleSelect(input: SingleSelectInput) {
      const plan = singleSelectCommands(input);
      await atomic(plan.commands);
      return { enumType: plan.enumType, options: plan.options };
    },
    /** A rich-text field. */
    async createRichTextField(holderType: string, name: string, meta?: Meta): Promise<void> {
      const command = richTextCommand(holderType, name, meta);
      await one(command.command, command.args!);
    },
    /** Schema commands in one `svc.schema/batch`. */
    async batch(commands: Command[]): Promise<void> {
      await one('svc.schema/batch', { commands });
    },
  };
}
