import { describe, expect, it } from 'vitest';
import { TAGGED_ENVIRONMENT_KEYS } from '../../infra/stacks/environment-access.js';
import { leadingKeysCondition } from '../../infra/stacks/grants.js';
import { synthPlatform } from './synth.js';
import { templateReader } from './template-support.js';

/**
 * The isolation guard (infra/stacks/environment-access.ts, docs/operations.md): per data function, a role assumed
 * per environment with a session tag, whose every statement is pinned to `E#<tag>#*`, and a function role with
 * nothing of the data tables left.
 */
const GUARDED = ['ledger', 'ledger-writer', 'ledger-holds', 'payments', 'webhooks'];
const prod = templateReader(synthPlatform({ stage: 'prod', ledgerBuckets: 'heavy' }).template);
const DATA_TABLES = ['ledger', 'ledger-heavy', 'payments', 'webhooks', 'events'].map((t) =>
  prod.tableId(`platform-prod-${t}`),
);

const roleOf = (name: string) => prod.fn(`platform-prod-${name}`).Role['Fn::GetAtt'][0] as string;

/** Every policy statement attached to a role (its inline policies, as the stack writes them). */
function statements(roleId: string): Array<Record<string, any>> {
  return Object.values(prod.resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
    )
    .flatMap((r) => r.Properties.PolicyDocument.Statement);
}

describe.each(GUARDED)('%s: isolation guard', (name) => {
  const guardId = prod.guardRoleId(name);
  const guard = prod.resources[guardId]!.Properties;

  it('the guard role trusts the function role alone: AssumeRole, and TagSession only with the environment tag', () => {
    const principal = { AWS: { 'Fn::GetAtt': [roleOf(name), 'Arn'] } };
    expect(guard.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: principal },
      {
        Action: 'sts:TagSession',
        Effect: 'Allow',
        Principal: principal,
        Condition: {
          StringLike: { 'aws:RequestTag/environment': '?*' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': ['environment'] },
        },
      },
    ]);
    expect(guard.ManagedPolicyArns).toBeUndefined();
  });

  it("every statement of the guard's policy allows only the tagged environment's partition keys", () => {
    const granted = statements(guardId);
    expect(granted.length).toBeGreaterThan(0);
    for (const statement of granted) {
      expect(statement.Effect).toBe('Allow');
      expect(statement.Condition).toEqual(leadingKeysCondition([TAGGED_ENVIRONMENT_KEYS]));
      for (const action of [statement.Action].flat()) expect(action).toMatch(/^dynamodb:/);
    }
    // The IAM policy variable, written out (it is not a template placeholder).
    expect(TAGGED_ENVIRONMENT_KEYS).toBe(['E#$', '{aws:PrincipalTag/environment}#*'].join(''));
  });

  it('the function may assume it (and tag the session), and its own role has no access to a data table', () => {
    const own = statements(roleOf(name));
    expect(own).toContainEqual({
      Action: ['sts:AssumeRole', 'sts:TagSession'],
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [guardId, 'Arn'] },
    });
    const touchesData = own.filter((s) =>
      [s.Resource]
        .flat()
        .some((r) => DATA_TABLES.some((table) => JSON.stringify(r).includes(`"${table}"`))),
    );
    // The hold sweeper's own role finds due holds of every environment: Query of the `due` index's shards, no more.
    const ownDueQueries = touchesData.filter(
      (s) =>
        name === 'ledger-holds' &&
        s.Action === 'dynamodb:Query' &&
        JSON.stringify(s.Resource).endsWith('"/index/due"]]}') &&
        JSON.stringify(s.Condition) === JSON.stringify(leadingKeysCondition(['HOLDS#*'])),
    );
    expect(ownDueQueries.length).toBe(name === 'ledger-holds' ? 2 : 0);
    expect(touchesData.filter((s) => !ownDueQueries.includes(s))).toEqual([]);
    expect(
      prod.fn(`platform-prod-${name}`).Environment.Variables.ENVIRONMENT_ACCESS_ROLE_ARN,
    ).toEqual({
      'Fn::GetAtt': [guardId, 'Arn'],
    });
  });
});

describe('functions without a guard', () => {
  it.each([
    'auth',
    'platform',
    'dispatch',
    'deliver',
    'rotate-keys',
    'console',
    'payments-connectors',
    'ledger-reply-sweep',
  ])('%s: no guard role, no ENVIRONMENT_ACCESS_ROLE_ARN', (name) => {
    expect(() => prod.guardRoleId(name)).toThrow('expected one AWS::IAM::Role, found 0');
    expect(
      prod.fn(`platform-prod-${name}`).Environment.Variables.ENVIRONMENT_ACCESS_ROLE_ARN,
    ).toBeUndefined();
  });
});
