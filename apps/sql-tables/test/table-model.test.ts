// How catalog facts become types, without a database: the cases the demo does not show.
import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../src/introspect.js';
import { schemaFields, tableModels } from '../src/table-model.js';

const int = { name: 'int4', typtype: 'b', category: 'N', sql: 'integer' };
const text = { name: 'text', typtype: 'b', category: 'S', sql: 'text' };
const bytes = { name: 'bytea', typtype: 'b', category: 'U', sql: 'bytea' };
const col = (name: string, type = int): ColumnInfo => ({ name, notNull: false, type, comment: null });
const table = (schema: string, name: string, extra: Partial<TableInfo>): TableInfo => ({
  schema,
  name,
  comment: null,
  estimatedRows: 0,
  columns: [col('id')],
  primaryKey: ['id'],
  unique: [['id']],
  foreignKeys: [],
  ...extra,
});

describe('sql-tables: table models', () => {
  const tables = [
    table('hr', 'people', {
      columns: [col('id'), col('full_name', text), col('manager_id'), col('photo', bytes)],
      foreignKeys: [
        { columns: ['manager_id'], targetSchema: 'hr', targetTable: 'people', targetColumns: ['id'] },
      ],
    }),
    table('sales', 'orders', {
      primaryKey: ['order_no'],
      unique: [['order_no'], ['invoice_id']],
      columns: [col('order_no'), col('id'), col('seller_id'), col('buyer_id'), col('invoice_id')],
      foreignKeys: [
        { columns: ['seller_id'], targetSchema: 'hr', targetTable: 'people', targetColumns: ['id'] },
        { columns: ['buyer_id'], targetSchema: 'hr', targetTable: 'people', targetColumns: ['id'] },
        { columns: ['invoice_id'], targetSchema: 'sales', targetTable: 'invoices', targetColumns: ['id'] },
      ],
    }),
    table('sales', 'invoices', {}),
    table('sales', 'audit_log', { primaryKey: [], unique: [], columns: [col('at', text)] }),
  ];
  const models = tableModels(tables, ['hr', 'sales']);
  const byId = Object.fromEntries(models.map((m) => [m.typeId, m]));

  it('qualifies type ids with the schema when the account reads several, and leaves out keyless tables', () => {
    expect(models.map((m) => m.typeId)).toEqual(['hr.people', 'sales.orders', 'sales.invoices']);
  });

  it('relations: self-references, two keys to one table with their own names, one-to-one for unique keys', () => {
    const people = schemaFields(byId['hr.people']!);
    expect(people.name!.spec).toMatchObject({ subType: 'title', name: 'Full Name' });
    expect(people.manager_id!.spec.relation).toMatchObject({
      targetType: 'hr.people',
      cardinality: 'many-to-one',
    });
    expect(people.photo).toBeUndefined();
    const orders = schemaFields(byId['sales.orders']!);
    expect(orders.id!.spec).toMatchObject({ type: 'id', name: 'Order No' });
    expect(orders.id_column!.spec).toMatchObject({ type: 'number', subType: 'integer' });
    expect(orders.seller_id!.spec.relation).toMatchObject({
      targetType: 'hr.people',
      targetName: 'Orders (Seller Id)',
    });
    expect(orders.buyer_id!.spec.relation).toMatchObject({ targetName: 'Orders (Buyer Id)' });
    expect(orders.invoice_id!.spec.relation).toMatchObject({
      targetType: 'sales.invoices',
      cardinality: 'one-to-one',
    });
    // No title column: one is made from the id.
    expect(byId['sales.orders']!.syntheticTitle).toBe(true);
  });
});
