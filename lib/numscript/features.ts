/**
 * The reference's experimental feature flags (its internal/flags), switched on per script by the pragma
 * `#![feature("experimental-oneof", ...)]` as the first line, or by the caller through execute's options.
 */
export const FEATURE = {
  oneof: 'experimental-oneof',
  overdraftFunction: 'experimental-overdraft-function',
  getAssetFunction: 'experimental-get-asset-function',
  getAmountFunction: 'experimental-get-amount-function',
  accountInterpolation: 'experimental-account-interpolation',
  midScriptFunctionCall: 'experimental-mid-script-function-call',
  assetColors: 'experimental-asset-colors',
  assetScaling: 'experimental-asset-scaling',
} as const;

export type FeatureFlag = (typeof FEATURE)[keyof typeof FEATURE];
