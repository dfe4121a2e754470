import { type PersonProfile, personId } from '../../platform/domain/directory.js';
import type { PlatformDirectory } from '../../platform/store/directory.js';

/**
 * The persons known to an environment (docs/decisions/tenancy.md, "Persons and the identity provider"): the members of its
 * organization who have logged in. Read from the platform directory: the environment (one read), its
 * organization's members (at most MAX_MEMBERS) and their profiles (one batch read per 100).
 */
export class EnvironmentPersons {
  constructor(private readonly directory: PlatformDirectory) {}

  /** In the order of their emails. An unknown or deleted environment has nobody. */
  async list(environment: string): Promise<PersonProfile[]> {
    const found = await this.directory.environment(environment);
    if (!found) return [];
    const members = await this.directory.members(found.organizationId);
    const profiles = await this.directory.profiles(members.map((m) => m.email));
    return profiles.filter((p): p is PersonProfile => p !== undefined);
  }

  /** One of them by id; undefined for anyone else, a person of another organization included. */
  async read(environment: string, id: string): Promise<PersonProfile | undefined> {
    const found = await this.directory.environment(environment);
    if (!found) return undefined;
    const members = await this.directory.members(found.organizationId);
    const member = members.find((m) => personId(m.email) === id);
    return member && this.directory.profile(member.email);
  }
}
