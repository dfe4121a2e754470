/**
 * Amounts beyond 2^53 through the official TypeScript SDK (#14 item 8): what it sends and what it reads back,
 * against what the platform stores and answers (always exact: the raw answer is checked byte for byte).
 */
import type { SDK } from '@formance/formance-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type InProcessPlatform,
  startInProcessSdkPlatform,
} from '../support/in-process-platform.js';
import { testClientToken } from '../support/platform.js';

let platform: InProcessPlatform;
let sdk: SDK;
const BIG = 2n ** 60n + 1n; // 1152921504606846977: not a double

beforeAll(async () => {
  ({ platform, sdk } = await startInProcessSdkPlatform());
  await sdk.ledger.v2.createLedger({ ledger: 'big', v2CreateLedgerRequest: {} });
});

afterAll(async () => {
  await platform?.stop();
});

describe('amounts beyond 2^53 with the TypeScript SDK', () => {
  it('are rounded by the SDK itself (it converts bigint to a double to send, and parses answers as doubles); the platform keeps what it receives exactly', async () => {
    const token = await testClientToken(platform);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await sdk.ledger.v2.createTransaction({
      ledger: 'big',
      v2PostTransaction: {
        postings: [{ source: 'world', destination: 'whale', amount: BIG, asset: 'COIN' }],
        metadata: {},
      },
    });
    const id = created.v2CreateTransactionResponse!.data.id;
    const sent = await (
      await fetch(`${platform.baseUrl}/api/ledger/v2/big/transactions/${id}`, { headers })
    ).text();
    // What the SDK put on the wire: the nearest double in JavaScript's shortest form (1152921504606847000), stored
    // and answered exactly as received.
    expect(sent).toContain(`"amount":${Number(BIG)}`);
    expect(`${Number(BIG)}`).toBe('1152921504606847000');
    expect(created.v2CreateTransactionResponse!.data.postings[0]!.amount).toBe(BigInt(Number(BIG)));

    // Raw HTTP with an exact JSON number: exact in, exact out — as a bare number, or as a string on request.
    const raw = await fetch(`${platform.baseUrl}/api/ledger/v2/big/transactions`, {
      method: 'POST',
      headers,
      body: `{"postings":[{"source":"world","destination":"orca","amount":${BIG},"asset":"COIN"}]}`,
    });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain(`"amount":${BIG}`);
    const asString = (await (
      await fetch(`${platform.baseUrl}/api/ledger/v2/big/accounts/orca?expand=volumes`, {
        headers: { ...headers, 'formance-bigint-as-string': 'true' },
      })
    ).json()) as { data: { volumes: Record<string, { balance: string }> } };
    expect(asString.data.volumes.COIN?.balance).toBe(String(BIG));
    // And the SDK reading that exact answer gets the nearest double again.
    const read = await sdk.ledger.v2.getAccount({
      ledger: 'big',
      address: 'orca',
      expand: 'volumes',
    });
    expect(read.v2AccountResponse!.data.volumes!.COIN!.balance).toBe(BigInt(Number(BIG)));
  });

  it('carries 39-, 87- and 200-digit amounts exactly where the SDK can say them: in Numscript and in filters (answers read as the nearest double)', async () => {
    const A39 = 123456789012345678901234567890123456789n;
    const A87 = BigInt(`9${'87654321'.repeat(11).slice(0, 86)}`);
    const A200 = 7n * 10n ** 199n + 1n;
    await sdk.ledger.v2.createLedger({ ledger: 'huge', v2CreateLedgerRequest: {} });
    // Postings would go through a double; a script's amounts are text, exact.
    for (const [account, amount] of [
      ['h39', A39],
      ['h87', A87],
      ['h200', A200],
    ] as const) {
      const created = await sdk.ledger.v2.createTransaction({
        ledger: 'huge',
        v2PostTransaction: {
          script: {
            plain: `send [USD ${amount}] ( source = @world allowing unbounded overdraft destination = @${account} )`,
            vars: {},
          },
          metadata: {},
        },
      });
      expect(created.v2CreateTransactionResponse!.data.postings[0]!.amount).toBe(
        BigInt(Number(amount)),
      );
    }
    // A filter operand as a decimal string is exact: only h87 and h200 hold more than A87 - 1.
    const above = await sdk.ledger.v2.listAccounts({
      ledger: 'huge',
      query: { $gt: { 'balance[USD]': String(A87 - 1n) } },
    });
    expect(above.v2AccountsCursorResponse!.cursor.data.map((a) => a.address).sort()).toEqual([
      'h200',
      'h87',
    ]);
    const exactly = await sdk.ledger.v2.listAccounts({
      ledger: 'huge',
      query: { $match: { 'balance[USD]': String(A39) } },
    });
    expect(exactly.v2AccountsCursorResponse!.cursor.data.map((a) => a.address)).toEqual(['h39']);
    const aggregated = await sdk.ledger.v2.getBalancesAggregated({
      ledger: 'huge',
      query: { $match: { address: 'h87' } },
    });
    expect(aggregated.v2AggregateBalancesResponse!.data.USD).toBe(BigInt(Number(A87)));
    // The platform's own answer is exact: the sum of the three, byte for byte.
    const token = await testClientToken(platform);
    const raw = await (
      await fetch(`${platform.baseUrl}/api/ledger/v2/huge/accounts/world?expand=volumes`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).text();
    expect(raw).toContain(`"balance":-${A39 + A87 + A200}`);
    // A negative one: 301 digits are refused, whatever the SDK sends.
    const refused = await sdk.ledger.v2
      .createTransaction({
        ledger: 'huge',
        v2PostTransaction: {
          script: {
            plain: `send [USD ${10n ** 300n}] ( source = @world allowing unbounded overdraft destination = @nope )`,
            vars: {},
          },
          metadata: {},
        },
      })
      .then(
        () => undefined,
        (err: Error) => err,
      );
    expect(refused?.message).toMatch(/volumes of USD would exceed the 300-digit limit/);
  });
});
