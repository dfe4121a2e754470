import type { TokenSigner } from '../../tokens/mint.js';
import type { RandomText } from '../domain/ids.js';
import type { PlatformDirectory } from '../store/directory.js';
import type { DirectoryWrites } from '../store/directory-writes.js';
import type { OrganizationAccess } from './access.js';

/**
 * Whether an environment still holds something of one kind (ledgers, webhook configs, payments, clients): each
 * service's store answers from its list partition, one read (lib/<service>/store/environment-probe.ts).
 */
export interface EnvironmentProbe {
  /** What it looks for, as an error names it: `ledgers`, `webhook configs`, … */
  holds: string;
  exists(environment: string): Promise<boolean>;
}

/** What the platform service's commands work with, composed once by its app. */
export interface PlatformServiceContext {
  directory: PlatformDirectory;
  writes: DirectoryWrites;
  access: OrganizationAccess;
  probes: readonly EnvironmentProbe[];
  /** Personal tokens: signed with the auth service's keys, for the API's issuer and audience. */
  tokens: { signer: TokenSigner; issuer: string; audience: string };
  now: () => number;
  random?: RandomText;
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();
