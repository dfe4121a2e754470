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
});
