import { type DynamoDBDocumentClient, paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { MoveRecord } from '../domain/effective-volumes.js';
import { amountOfAttribute } from './amount-encoding.js';
import { type LedgerRef, ledgerKeys, MOVE_PAGE_PREFIX } from './keys.js';
import { decodeMove, moveKey } from './move-codec.js';

/** A bound on move keys (`<sortable time>#<id>`, or a bare sortable time, which sorts before its moves). */
export interface KeyBound {
  key: string;
  inclusive: boolean;
}

/**
 * Every move of a pair whose effective key lies between two bounds, whatever its commit order
 * (docs/data-model.md, "Moves"). In-order moves come from the pages (and buffer) whose key range can hold them —
 * a page's key is the pair's greatest key when it started, so that is the pages starting inside the range plus
 * the one before — and late moves from the late-move partition. Cost: bounded by the moves in the range.
 */
export async function movesInRange(
  doc: DynamoDBDocumentClient,
  table: string,
  ledger: LedgerRef,
  account: string,
  asset: string,
  volume: Record<string, unknown> | undefined,
  range: { lower?: KeyBound; upper?: KeyBound },
): Promise<MoveRecord[]> {
  const inRange = (key: string) =>
    (!range.lower || (range.lower.inclusive ? key >= range.lower.key : key > range.lower.key)) &&
    (!range.upper || (range.upper.inclusive ? key <= range.upper.key : key < range.upper.key));
  const partition = ledgerKeys.movePartition(ledger, account, asset);
  const lower = range.lower && `${MOVE_PAGE_PREFIX}${range.lower.key}`;
  // `~` sorts after `#` and every digit: the bound is above every page starting at the upper key.
  const upper = range.upper && `${MOVE_PAGE_PREFIX}${range.upper.key}~`;
  const [pages, before, late] = await Promise.all([
    queryAll(doc, {
      TableName: table,
      KeyConditionExpression: `pk = :p${lower && upper ? ' AND sk BETWEEN :lo AND :hi' : lower ? ' AND sk >= :lo' : upper ? ' AND sk <= :hi' : ''}`,
      ExpressionAttributeValues: {
        ':p': partition,
        ...(lower ? { ':lo': lower } : {}),
        ...(upper ? { ':hi': upper } : {}),
      },
      ConsistentRead: true,
    }),
    lower
      ? doc
          .send(
            new QueryCommand({
              TableName: table,
              KeyConditionExpression: 'pk = :p AND sk < :lo',
              ExpressionAttributeValues: { ':p': partition, ':lo': lower },
              ScanIndexForward: false,
              Limit: 1,
              ConsistentRead: true,
            }),
          )
          .then((r) => r.Items ?? [])
      : Promise.resolve([]),
    lateMoves(doc, table, ledgerKeys.lateMovePartition(ledger, account, asset), range),
  ]);
  const texts = [...before, ...pages].flatMap((page) => page.moves as string[]);
  texts.push(...((volume?.mv as string[] | undefined) ?? []));
  const seen = new Set<number>();
  const moves: MoveRecord[] = [];
  for (const text of texts) {
    const move = decodeMove(text);
    const key = moveKey(move.at, move.txId);
    // Late moves are counted from their own partition (read by key range), never from pages.
    if (move.late || seen.has(move.txId) || !inRange(key)) continue;
    seen.add(move.txId);
    moves.push({ key, txId: move.txId, input: move.input, output: move.output });
  }
  return [...moves, ...late.filter((m) => inRange(m.key))];
}

/** Late moves of a pair (their keys are their effective keys) within a key range. */
export async function lateMoves(
  doc: DynamoDBDocumentClient,
  table: string,
  partition: string,
  range: { lower?: KeyBound; upper?: KeyBound },
): Promise<MoveRecord[]> {
  const lo = range.lower?.key;
  // A bare time bound sorts below its moves: `~` above every `<time>#<id>`.
  const hi =
    range.upper && (range.upper.key.includes('#') ? range.upper.key : `${range.upper.key}~`);
  const items = await queryAll(doc, {
    TableName: table,
    KeyConditionExpression: `pk = :p${lo !== undefined && hi !== undefined ? ' AND sk BETWEEN :lo AND :hi' : lo !== undefined ? ' AND sk >= :lo' : hi !== undefined ? ' AND sk <= :hi' : ''}`,
    ExpressionAttributeValues: {
      ':p': partition,
      ...(lo !== undefined ? { ':lo': lo } : {}),
      ...(hi !== undefined ? { ':hi': hi } : {}),
    },
    ProjectionExpression: 'sk, txId, #i, #o',
    ExpressionAttributeNames: { '#i': 'input', '#o': 'output' },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    key: String(item.sk),
    txId: Number(item.txId),
    input: amountOfAttribute(item.input),
    output: amountOfAttribute(item.output),
  }));
}

async function queryAll(
  doc: DynamoDBDocumentClient,
  input: ConstructorParameters<typeof QueryCommand>[0],
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  for await (const page of paginateQuery({ client: doc }, input))
    items.push(...((page.Items ?? []) as Array<Record<string, unknown>>));
  return items;
}
