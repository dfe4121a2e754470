/**
 * What the Lambda bundles use in place of the `yaml` package (swapped in by the `alias` in infra/bundling.ts). The
 * one configuration a function reads as YAML is the auth configuration, and the stack hands it over as JSON
 * (`AUTH_CONFIG_INLINE`, written by `authConfigForFunction` in infra/stacks/auth-config-check.ts from the YAML it
 * has already checked), so the YAML parser — about 115 KB, a fifth of the auth bundle, compiled on every cold start —
 * would read nothing but JSON. JSON is YAML: what this reads, the full parser reads alike.
 */
export function parse(text: string): unknown {
  return JSON.parse(text);
}
