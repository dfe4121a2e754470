import { Hono } from 'hono';
import { openapi } from '../openapi/describe.js';
import { versionsSchema } from '../openapi/schemas.js';
import { PLATFORM_VERSION } from '../openapi/version.js';

/** One service's health, as `/versions` reports it. A probe that throws counts as unhealthy. */
export interface ServiceProbe {
  name: string;
  healthy: () => Promise<boolean>;
}

export interface VersionsInfo {
  /** The deployment's stage (`local`, `dev`, `prod`): the reference's `env`. */
  env: string;
  region: string;
  probes: readonly ServiceProbe[];
}

/**
 * `GET /versions` (the reference gateway's, read by the SDK's `getVersions`): every service with its version
 * and health. Public, like the reference's: it names services and versions, nothing of anyone's data. Outside
 * `/api/<service>`, so it is its own small app that the auth function (AWS) or the local gateway mounts.
 */
export function createVersionsApp(info: VersionsInfo): Hono {
  const app = new Hono();
  app.get(
    '/versions',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getVersions',
        summary: 'Services, versions and health',
        description: "Every service with the platform's version and whether its tables answer.",
        tags: ['platform'],
        public: true,
        responses: { 200: { description: 'The services.', schema: versionsSchema } },
      },
    ),
    async (c) => {
      const versions = await Promise.all(
        info.probes.map(async (probe) => ({
          name: probe.name,
          version: PLATFORM_VERSION,
          health: await probe.healthy().catch(() => false),
        })),
      );
      return c.json({ env: info.env, region: info.region, versions });
    },
  );
  return app;
}
