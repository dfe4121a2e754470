/**
 * The environment the CLI reads, once, at start (`main.ts`): nothing else in `cli/` reads `process.env`.
 */
export interface CliVariables {
  /** Default for `--url` (login, and commands run without a stored profile). */
  url?: string;
  /** Credentials for a run without a stored profile (CI): a bearer token, or a client id and secret. */
  token?: string;
  clientId?: string;
  clientSecret?: string;
  /** Where the profile lives: `$XDG_CONFIG_HOME/platform/`, else `$HOME/.config/platform/`. */
  configHome?: string;
  home?: string;
}

const nonEmpty = (value: string | undefined) => (value ? value : undefined);

export function readCliVariables(variables: NodeJS.ProcessEnv): CliVariables {
  const picked: Record<string, string | undefined> = {
    url: nonEmpty(variables.PLATFORM_URL),
    token: nonEmpty(variables.PLATFORM_TOKEN),
    clientId: nonEmpty(variables.PLATFORM_CLIENT_ID),
    clientSecret: nonEmpty(variables.PLATFORM_CLIENT_SECRET),
    configHome: nonEmpty(variables.XDG_CONFIG_HOME),
    home: nonEmpty(variables.HOME),
  };
  return Object.fromEntries(
    Object.entries(picked).filter(([, v]) => v !== undefined),
  ) as CliVariables;
}
