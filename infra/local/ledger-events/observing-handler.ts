import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { HttpHandler, HttpRequest, HttpResponse } from '@smithy/core/protocols';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import type { EarlyAnswers } from '../durability-barrier.js';
import type { LedgerItemWrite, LedgerWrites } from './ledger-writes.js';

type Key = Record<string, AttributeValue>;
type WriteRequest = { PutRequest?: { Item?: Key }; DeleteRequest?: { Key?: Key } };
type TransactItem = {
  Put?: { TableName?: string; Item?: Key };
  Update?: { TableName?: string; Key?: Key };
  Delete?: { TableName?: string; Key?: Key };
};

const WRITE_TARGETS = new Set([
  'DynamoDB_20120810.TransactWriteItems',
  'DynamoDB_20120810.PutItem',
  'DynamoDB_20120810.UpdateItem',
  'DynamoDB_20120810.DeleteItem',
  'DynamoDB_20120810.BatchWriteItem',
]);

/**
 * The HTTP handler of every DynamoDB client the local platform's process builds (through its connection
 * settings): the SDK's own, which also tells `writes` of each item a successful write put into a ledger table.
 * One connection pool for all of them; `destroy` is the platform's (`close`), not a client's.
 */
export class ObservingHttpHandler implements HttpHandler<NodeHttpHandlerOptions> {
  private readonly inner = new NodeHttpHandler();

  constructor(
    private readonly ledgerTables: ReadonlySet<string>,
    private readonly writes: LedgerWrites,
    /** Counts the answers DynamoDB Local may give before committing (the durability barrier's). */
    private readonly earlyAnswers?: EarlyAnswers,
  ) {}

  async handle(
    request: HttpRequest,
    options?: Parameters<NodeHttpHandler['handle']>[1],
  ): Promise<{ response: HttpResponse }> {
    const answer = await this.inner.handle(request, options);
    const target = request.headers['x-amz-target'];
    if (answer.response.statusCode === 200) this.earlyAnswers?.observe(target);
    if (answer.response.statusCode === 200 && target !== undefined && WRITE_TARGETS.has(target))
      this.writes.notify(ledgerWritesOf(target, bodyText(request.body), this.ledgerTables));
    return answer;
  }

  updateHttpClientConfig(key: never, value: never): void {
    this.inner.updateHttpClientConfig(key, value);
  }

  httpHandlerConfigs() {
    return this.inner.httpHandlerConfigs();
  }

  /** Clients share this handler: one of them being destroyed must not close the others' connections. */
  destroy(): void {}

  close(): void {
    this.inner.destroy();
  }
}

const utf8 = new TextDecoder();

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return utf8.decode(body);
  return '';
}

/** The ledger-table items a write request names (its body, the DynamoDB JSON protocol's). */
export function ledgerWritesOf(
  target: string,
  body: string,
  ledgerTables: ReadonlySet<string>,
): LedgerItemWrite[] {
  if (body === '') return [];
  const input = JSON.parse(body) as Record<string, unknown>;
  const out: LedgerItemWrite[] = [];
  const add = (table: string | undefined, key: Key | undefined, item?: Key) => {
    const pk = key?.pk?.S;
    const sk = key?.sk?.S;
    if (table === undefined || !ledgerTables.has(table) || pk === undefined || sk === undefined)
      return;
    out.push({ table, pk, sk, ...(item ? { item } : {}) });
  };
  switch (target.slice(target.indexOf('.') + 1)) {
    case 'TransactWriteItems':
      for (const t of (input.TransactItems ?? []) as TransactItem[]) {
        if (t.Put) add(t.Put.TableName, t.Put.Item, t.Put.Item);
        else if (t.Update) add(t.Update.TableName, t.Update.Key);
        else if (t.Delete) add(t.Delete.TableName, t.Delete.Key);
      }
      break;
    case 'PutItem':
      add(input.TableName as string, input.Item as Key, input.Item as Key);
      break;
    case 'UpdateItem':
    case 'DeleteItem':
      add(input.TableName as string, input.Key as Key);
      break;
    case 'BatchWriteItem':
      for (const [table, requests] of Object.entries(
        (input.RequestItems ?? {}) as Record<string, WriteRequest[]>,
      ))
        for (const r of requests)
          if (r.PutRequest) add(table, r.PutRequest.Item, r.PutRequest.Item);
          else add(table, r.DeleteRequest?.Key);
      break;
  }
  return out;
}
