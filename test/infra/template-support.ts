import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { leadingKeysCondition } from '../../infra/stacks/grants.js';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, any>; DeletionPolicy?: string }
>;

/** Small readers over a synthesized template, so tests can name resources by their physical names. */
export function templateReader(template: Template) {
  const resources = template.toJSON().Resources as Resources;
  const logicalId = (type: string, match: (p: Record<string, any>) => boolean): string => {
    const ids = Object.entries(resources)
      .filter(([, r]) => r.Type === type && match(r.Properties))
      .map(([id]) => id);
    if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
    return ids[0]!;
  };
  const fnId = (name: string) => logicalId('AWS::Lambda::Function', (p) => p.FunctionName === name);
  return {
    resources,
    logicalId,
    fnId,
    fn: (name: string) => resources[fnId(name)]!.Properties,
    tableId: (name: string) => logicalId('AWS::DynamoDB::GlobalTable', (p) => p.TableName === name),
    queueId: (name: string) => logicalId('AWS::SQS::Queue', (p) => p.QueueName === name),
    logGroupId: (name: string) => logicalId('AWS::Logs::LogGroup', (p) => p.LogGroupName === name),
    /** The isolation guard's role of a function (infra/stacks/environment-access.ts), by its description. */
    guardRoleId: (name: string) =>
      logicalId('AWS::IAM::Role', (p) =>
        String(p.Description).startsWith(`Isolation guard of the ${name} function:`),
      ),
    /**
     * Every statement granted to a function's role, as "Action1,Action2 on <resource>" lines (sorted), with
     * " if <condition>" when the statement has one (`LeadingKeys a|b` for a leading keys condition).
     */
    permissions(functionName: string): string[] {
      return this.rolePermissions(
        resources[fnId(functionName)]!.Properties.Role['Fn::GetAtt'][0] as string,
      );
    },
    /** The same lines for any role, by its logical id. */
    rolePermissions(roleId: string): string[] {
      const lines: string[] = [];
      for (const r of Object.values(resources)) {
        if (
          r.Type !== 'AWS::IAM::Policy' ||
          !r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId)
        )
          continue;
        for (const s of r.Properties.PolicyDocument.Statement) {
          expect(s.Effect).toBe('Allow');
          const actions = [s.Action].flat().sort().join(',');
          const condition = s.Condition ? ` if ${renderCondition(s.Condition)}` : '';
          for (const resource of [s.Resource].flat())
            lines.push(`${actions} on ${render(resource)}${condition}`);
        }
      }
      return lines.sort();
    },
  };
}

/** `{Fn::GetAtt: [id, Arn]}` → `id.Arn`, `{Ref: id}` → `id`, `Fn::Join` → the parts joined. */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>;
  if (v['Fn::GetAtt']) return `${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}`;
  if (v.Ref) return v.Ref;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(render).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** A leading keys condition (infra/stacks/grants.ts) as `LeadingKeys <pattern>|<pattern>`, any other as JSON. */
function renderCondition(condition: Record<string, any>): string {
  const patterns = condition['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as
    | string[]
    | undefined;
  if (patterns && JSON.stringify(condition) === JSON.stringify(leadingKeysCondition(patterns)))
    return `LeadingKeys ${patterns.join('|')}`;
  return JSON.stringify(condition);
}
