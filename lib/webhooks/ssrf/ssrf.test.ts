import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { classifyAddress } from './classify.js';
import { endpointProblem } from './endpoint-url.js';
import {
  guardedLookup,
  RefusedAddressError,
  type Resolver,
  resolveDeliverable,
} from './guarded-lookup.js';
import { formatIpAddress, parseIPv4, parseIPv6, parseIpAddress } from './ip-address.js';
import { literalHostProblem } from './literal-host.js';

const refusedBecause = (address: string) => {
  const verdict = classifyAddress(address);
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('IP parsing', () => {
  it('reads the legacy IPv4 spellings getaddrinfo and WHATWG URL accept', () => {
    const loopback = 0x7f000001;
    for (const text of [
      '127.0.0.1',
      '2130706433',
      '0x7f000001',
      '0X7F000001',
      '0177.0.0.1',
      '127.1',
      '0x7f.1',
      '127.0.1',
      '127.0.0.1.',
    ]) {
      expect(parseIPv4(text), text).toBe(loopback);
    }
    for (const text of [
      'example.com',
      '1.2.3.4.5',
      '256.0.0.1',
      '1..2',
      '4294967296',
      '08.1.1.1',
      '1.2.3.0x100',
      '',
    ]) {
      expect(parseIPv4(text), text).toBeUndefined();
    }
  });

  it('reads IPv6 with compression, brackets, zones and a trailing dotted quad', () => {
    expect(parseIPv6('::1')).toBe(1n);
    expect(parseIPv6('[::1]')).toBe(1n);
    expect(parseIPv6('fe80::1%eth0')).toBe((0xfe80n << 112n) | 1n);
    expect(parseIPv6('::ffff:127.0.0.1')).toBe(parseIPv6('::ffff:7f00:1'));
    expect(parseIPv6('2002:0a00:0001::')).toBe(0x20020a000001n << 80n);
    for (const bad of [
      '1::2::3',
      ':::',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '::ffff:127.1',
      '::ffff:0177.0.0.1',
      'g::1',
    ]) {
      expect(parseIPv6(bad), bad).toBeUndefined();
    }
  });

  it('formats canonical text for errors and dialling', () => {
    expect(formatIpAddress(parseIpAddress('0177.0.0.1')!)).toBe('127.0.0.1');
    expect(formatIpAddress(parseIpAddress('2606:4700:0:0:0:0:0:1111')!)).toBe('2606:4700::1111');
    expect(formatIpAddress(parseIpAddress('::ffff:127.0.0.1')!)).toBe('::ffff:7f00:1');
    expect(formatIpAddress(parseIpAddress('1:0:0:2:0:0:0:3')!)).toBe('1:0:0:2::3');
  });

  it('agrees with WHATWG URL, which already normalises hostile IPv4 hosts', () => {
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1']) {
      expect(new URL(`http://${host}/`).hostname).toBe('127.0.0.1');
      expect(refusedBecause(host)).toBe('loopback'); // and the guard does not depend on it
    }
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['100.64.0.1', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:0a00:0001::', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:808:808::1', 'tunnel'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'tunnel'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
    ['2001:2::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['fec0::1', 'private'],
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
    ['example.com', 'not-an-ip-address'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusedBecause(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '198.20.0.1',
    '2606:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows public %s', (address) => {
    expect(classifyAddress(address)).toEqual({
      allowed: true,
      address: formatIpAddress(parseIpAddress(address)!),
    });
  });

  it('names the address and the reason', () => {
    const verdict = classifyAddress('64:ff9b::a9fe:a9fe');
    expect(verdict).toMatchObject({ allowed: false, reason: 'metadata' });
    expect(!verdict.allowed && verdict.detail).toMatch(/NAT64.*169\.254\.169\.254/);
  });
});

describe('resolveDeliverable and guardedLookup', () => {
  const resolver =
    (table: Record<string, LookupAddress[]>): Resolver =>
    async (host) => {
      const found = table[host];
      if (!found)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found;
    };
  const resolve = resolver({
    'public.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
    'internal.example': [{ address: '10.1.2.3', family: 4 }],
    'mixed.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
    localhost: [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ],
  });

  it('refuses hostile literal hosts without DNS', async () => {
    const noDns: Resolver = async () => {
      throw new Error('DNS must not be used for literals');
    };
    for (const host of [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[64:ff9b::a00:1]',
      '[2002:0a00:0001::]',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '127.1',
    ]) {
      await expect(resolveDeliverable(host, { resolve: noDns }), host).rejects.toBeInstanceOf(
        RefusedAddressError,
      );
    }
  });

  it('refuses a name resolving to a private address, naming the address and the reason', async () => {
    await expect(resolveDeliverable('internal.example', { resolve })).rejects.toThrow(
      'webhook target refused: internal.example resolves to 10.1.2.3 is refused: private',
    );
  });

  it('refuses a name if ANY of its addresses is refused', async () => {
    await expect(resolveDeliverable('mixed.example', { resolve })).rejects.toThrow(
      /169\.254\.169\.254.*metadata/,
    );
  });

  it('allows public names and literals', async () => {
    await expect(resolveDeliverable('public.example', { resolve })).resolves.toHaveLength(2);
    await expect(resolveDeliverable('8.8.8.8', { resolve })).resolves.toEqual([
      { address: '8.8.8.8', family: 4 },
    ]);
    await expect(resolveDeliverable('[2606:4700::1111]', { resolve })).resolves.toEqual([
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('allowLoopback allows loopback only — never private or metadata', async () => {
    const opts = { resolve, allowLoopback: true };
    await expect(resolveDeliverable('localhost', opts)).resolves.toHaveLength(2);
    await expect(resolveDeliverable('127.0.0.1', opts)).resolves.toHaveLength(1);
    await expect(resolveDeliverable('[::1]', opts)).resolves.toHaveLength(1);
    await expect(resolveDeliverable('10.0.0.1', opts)).rejects.toThrow(/private/);
    await expect(resolveDeliverable('169.254.169.254', opts)).rejects.toThrow(/metadata/);
    await expect(resolveDeliverable('0.0.0.0', opts)).rejects.toThrow(/unspecified/);
    await expect(resolveDeliverable('internal.example', opts)).rejects.toThrow(/private/);
    await expect(resolveDeliverable('localhost', { resolve })).rejects.toThrow(/loopback/);
  });

  it('passes DNS failures through', async () => {
    await expect(resolveDeliverable('nowhere.example', { resolve })).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  const call = (lookup: ReturnType<typeof guardedLookup>, host: string, options: object) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>(
      (done) => {
        lookup(host, options, (err, address, family) => done({ err, address, family }));
      },
    );

  it('works as a Node lookup, with all:true and single-address callbacks, honouring family', async () => {
    const lookup = guardedLookup({ resolve });
    expect(await call(lookup, 'public.example', { all: true })).toMatchObject({
      err: null,
      address: expect.any(Array),
    });
    expect(await call(lookup, 'public.example', {})).toEqual({
      err: null,
      address: '93.184.215.14',
      family: 4,
    });
    expect(await call(lookup, 'public.example', { family: 6 })).toMatchObject({
      address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      family: 6,
    });
    const refused = await call(lookup, 'internal.example', { all: true });
    expect(refused.err).toBeInstanceOf(RefusedAddressError);
    expect(refused.err?.code).toBe('ERR_WEBHOOK_ADDRESS_REFUSED');
  });
});

describe('registration-time check of literal hosts', () => {
  // Each URL as a customer might write it; the WHATWG parser normalises the legacy IPv4 spellings first.
  const refused: Array<[string, string]> = [
    ['http://169.254.169.254/latest/meta-data', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://10.0.0.1/hook', 'private'],
    ['http://10.1/hook', 'private'],
    ['http://0xa000001/hook', 'private'],
    ['http://167772161/hook', 'private'],
    ['http://012.0.0.1/hook', 'private'],
    ['http://192.168.1.20:8080/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://100.64.0.1/', 'shared-address-space'],
    ['http://169.254.1.1/', 'link-local'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::ffff:a00:1]/', 'private'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
  ];
  it.each(refused)('refuses %s in every stage (%s)', (url, reason) => {
    for (const stage of ['local', 'dev'] as const) {
      const problem = endpointProblem(
        url.replace(/^http:/, stage === 'dev' ? 'https:' : 'http:'),
        stage,
      );
      expect(problem, `${url} in ${stage}`).toContain('must not target a non-public address');
      expect(problem).toContain(`: ${reason} (`);
    }
  });

  it('admits loopback only where the deliverer does (the local stage), in every spelling', () => {
    for (const url of [
      'http://127.0.0.1:9000/hook',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      expect(endpointProblem(url, 'local'), url).toBeUndefined();
      const problem = endpointProblem(url.replace(/^http:/, 'https:'), 'dev');
      expect(problem, url).toContain('loopback');
    }
    expect(literalHostProblem('127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(literalHostProblem('10.0.0.1', { allowLoopback: true })).toContain(
      '10.0.0.1 is refused: private',
    );
  });

  it('leaves host names and public addresses to the connect-time guard', () => {
    for (const url of [
      'https://hooks.example.com/in',
      'https://93.184.216.34/in',
      'https://[2606:4700::1111]/in',
      'https://localhost/in',
      'https://metadata.google.internal/',
    ]) {
      expect(endpointProblem(url, 'dev'), url).toBeUndefined();
    }
  });
});
