import { SDK } from '@formance/formance-sdk';
import type { PlatformOptions, RunningPlatform } from '../../infra/local/platform.js';
import { startTestPlatform } from './platform.js';

/** The local platform and the official SDK pointed at it, authenticating as the local test client. */
export async function startSdkPlatform(
  options: Partial<PlatformOptions> = {},
): Promise<{ platform: RunningPlatform; sdk: SDK }> {
  const platform = await startTestPlatform(options);
  const sdk = new SDK({
    serverURL: platform.baseUrl,
    security: {
      clientID: 'local-dev',
      clientSecret: 'local-dev-secret',
      tokenURL: `${platform.baseUrl}/api/auth/oauth/token`,
    },
  });
  return { platform, sdk };
}
