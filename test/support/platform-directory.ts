import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunningPlatform } from '../../infra/local/platform.js';
import type { EnvironmentType } from '../../lib/platform/domain/directory.js';
import { PlatformDirectory } from '../../lib/platform/store/directory.js';
import {
  environmentKey,
  memberKey,
  membershipKey,
  organizationEnvironmentKey,
  organizationKey,
} from '../../lib/platform/store/keys.js';
import type { Role } from '../../lib/tokens/claims.js';
import { platformDocumentClient } from './platform.js';

const AT = '2026-01-01T00:00:00.000Z';

/**
 * Organizations, environments and members written straight into the platform table, with its keys, for the auth
 * service's tests (the platform service's own API is not theirs to use). `ensureDefaults` first, as a deployment
 * starts.
 */
export class TestDirectory {
  readonly directory: PlatformDirectory;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.directory = new PlatformDirectory(doc, table);
  }

  /** The directory of a running local platform (its platform table in its DynamoDB). */
  static of(platform: RunningPlatform): TestDirectory {
    const doc = platformDocumentClient(platform);
    return new TestDirectory(doc, platform.variables.PLATFORM_TABLE!);
  }

  /** The `default` organization and environment, with these admins. */
  defaults(admins: readonly string[]): Promise<boolean> {
    return this.directory.ensureDefaults(admins, AT);
  }

  async organization(id: string): Promise<void> {
    await this.put({ ...organizationKey(id), id, name: `Organization ${id}`, createdAt: AT });
  }

  async environment(id: string, organizationId: string, type: EnvironmentType = 'sandbox') {
    const environment = { id, organizationId, name: id, type, createdAt: AT };
    await this.put({ ...organizationEnvironmentKey(organizationId, id), ...environment });
    await this.put({ ...environmentKey(id), ...environment, state: 'active' });
  }

  /** Deleted as the platform deletes one: its id item stays, marked deleted (a tombstone). */
  async deleteEnvironment(id: string, organizationId: string): Promise<void> {
    await this.doc.send(
      new DeleteCommand({
        TableName: this.table,
        Key: organizationEnvironmentKey(organizationId, id),
      }),
    );
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: environmentKey(id),
        UpdateExpression: 'SET #state = :deleted',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':deleted': 'deleted' },
      }),
    );
  }

  async member(organizationId: string, email: string, role: Role = 'member'): Promise<void> {
    const membership = { organizationId, email, role, addedAt: AT };
    await this.put({ ...memberKey(organizationId, email), ...membership });
    await this.put({ ...membershipKey(email, organizationId), ...membership });
  }

  async removeMember(organizationId: string, email: string): Promise<void> {
    for (const Key of [memberKey(organizationId, email), membershipKey(email, organizationId)])
      await this.doc.send(new DeleteCommand({ TableName: this.table, Key }));
  }

  /** A person who has logged in (their profile), as the token exchange records it. */
  async login(email: string, subject: string, issuer = 'https://idp.test'): Promise<void> {
    await this.directory.recordLogin({ email, issuer, subject, at: AT });
  }

  private async put(item: Record<string, unknown>): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: item }));
  }
}
