/**
 * Write units of a TransactWriteItems computed by DynamoDB's published rules, because DynamoDB Local reports
 * them wrongly: it adds up the sizes of all items a transaction writes to a table and rounds once (three 100-byte
 * items → 2 units), where DynamoDB rounds each item up to 1 KB and doubles it (three items → 6 units).
 *
 * Rules applied (DynamoDB developer guide, "Capacity unit consumption" and "Capacity management for
 * transactions"): each action costs 2 × ceil(size / 1 KB) write units, where size is the larger of the item
 * before and after the write (a ConditionCheck, the item's size; at least 1 KB); an item that is, or was, in the
 * table's one global index (projection ALL) adds 1 × ceil(size / 1 KB) for the index entry (2 when its index key
 * changed: a delete and a put). The before and after sizes are read with consistent GetItems around the request,
 * on a client that the meter does not count.
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

type Item = Record<string, AttributeValue>;
interface Target {
  table: string;
  key: Item;
}

const KB = 1024;

/** DynamoDB's item size: attribute name bytes plus value bytes (numbers ≈ 1 byte per 2 digits + 1). */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value),
    0,
  );
}

function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined)
    return Math.ceil(v.N.replace(/^-|\.|e.*$/gi, '').replace(/^0+/, '').length / 2) + 1;
  if (v.B !== undefined) return v.B.byteLength;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.M !== undefined)
    return (
      3 + Object.entries(v.M).reduce((s, [k, x]) => s + Buffer.byteLength(k) + valueSize(x) + 1, 0)
    );
  if (v.L !== undefined) return 3 + v.L.reduce((s, x) => s + valueSize(x) + 1, 0);
  if (v.SS !== undefined) return v.SS.reduce((s, x) => s + Buffer.byteLength(x), 0);
  if (v.NS !== undefined) return v.NS.reduce((s, x) => s + Math.ceil(x.length / 2) + 1, 0);
  return 0;
}

function targets(input: {
  TransactItems?: Array<
    Record<
      string,
      { TableName?: string; Item?: Record<string, unknown>; Key?: Record<string, unknown> }
    >
  >;
}): Target[] {
  return (input.TransactItems ?? []).map((action) => {
    const op = action.Put ?? action.Update ?? action.Delete ?? action.ConditionCheck!;
    const key = op.Item ? { pk: op.Item.pk, sk: op.Item.sk } : op.Key!;
    return { table: op.TableName!, key: marshall(key, { removeUndefinedValues: true }) as Item };
  });
}

async function sizes(raw: DynamoDBClient, list: Target[]): Promise<Array<Item | undefined>> {
  return Promise.all(
    list.map(
      async (t) =>
        (
          await raw.send(
            new GetItemCommand({ TableName: t.table, Key: t.key, ConsistentRead: true }),
          )
        ).Item,
    ),
  );
}

const indexKey = (item: Item | undefined) =>
  item?.gsi1pk && item.gsi1sk ? `${item.gsi1pk.S}\u0000${item.gsi1sk.S}` : undefined;

export interface ActionUnits {
  action: string;
  /** The item's partition key, with ledger and account names as written (they are the benchmark's own). */
  pk: string;
  sk: string;
  bytes: number;
  units: number;
}

/** Call before the request; the returned function, after it succeeded, gives the units DynamoDB would charge. */
export async function transactWriteUnits(
  raw: DynamoDBClient,
  input: object,
): Promise<() => Promise<{ units: number; actions: ActionUnits[] }>> {
  const typed = input as Parameters<typeof targets>[0];
  const list = targets(typed);
  const before = await sizes(raw, list);
  return async () => {
    const after = await sizes(raw, list);
    const actions = list.map((t, i): ActionUnits => {
      const bytes = Math.max(
        before[i] ? itemSize(before[i]!) : 0,
        after[i] ? itemSize(after[i]!) : 0,
      );
      const blocks = Math.max(1, Math.ceil(bytes / KB));
      const [b, a] = [indexKey(before[i]), indexKey(after[i])];
      const units = 2 * blocks + (a || b ? blocks * (a && b && a !== b ? 2 : 1) : 0);
      return {
        action: Object.keys(typed.TransactItems![i]!)[0]!,
        pk: String(t.key.pk?.S),
        sk: String(t.key.sk?.S),
        bytes,
        units,
      };
    });
    return { units: actions.reduce((s, a) => s + a.units, 0), actions };
  };
}
