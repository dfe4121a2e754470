import { SecretValue } from 'aws-cdk-lib';

/**
 * The values of the `$NAME` secrets referenced by the auth configuration, as CloudFormation dynamic references
 * to Secrets Manager (`{{resolve:secretsmanager:...}}`): the clear value is never in the template or the
 * cloud assembly; CloudFormation resolves it at deploy time into the auth function's variables.
 *
 * Trade-off (see docs/operations.md): the value is then visible to anyone allowed
 * `lambda:GetFunctionConfiguration`, and a rotated secret takes effect at the next deploy. Reading Secrets
 * Manager at run time would avoid both, at the cost of a call at every cold start and code in the auth service.
 *
 * `reference` is a secret name or ARN, optionally `#jsonField` (ARNs contain colons, so `#` separates).
 */
export function staticClientSecretVariables(
  secrets: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secrets).map(([envName, reference]) => {
      const [secretId, jsonField] = reference.split('#', 2) as [string, string | undefined];
      const value = SecretValue.secretsManager(secretId, jsonField ? { jsonField } : {});
      // unsafeUnwrap renders the dynamic reference token, not the secret: CloudFormation resolves it.
      return [envName, value.unsafeUnwrap()];
    }),
  );
}
