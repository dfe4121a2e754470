import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { classifyWriteFailure } from '../../dynamo/errors.js';
import { commitUnlessRaced, retryRaces } from '../../dynamo/optimistic.js';
import { retryWithBackoff } from '../../dynamo/retry.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { DependencyThrottledError } from '../../errors/index.js';
import type { Environment, Membership, Organization } from '../domain/directory.js';
import type { RosterChange } from '../domain/roster.js';
import { PlatformDirectory } from './directory.js';
import {
  environmentKey,
  memberKey,
  membershipKey,
  organizationEnvironmentKey,
  organizationKey,
} from './keys.js';

/**
 * Lost races on one organization (its roster changed, or another transaction held one of its items) are tried
 * again. Each round lets one writer through, and organizations change at the pace of people clicking: 16
 * attempts with jitter is far more than they need.
 */
export const MAX_ROSTER_ATTEMPTS = 16;
const ROSTER_BACKOFF = { baseDelayMs: 10, maxDelayMs: 200 } as const;

/** An admin's write made only while they are still an admin (checked in its transaction). */
export interface AdminGuard {
  /** The person acting; absent for a platform-level client (its role is its token's). */
  adminEmail?: string;
}

export type EnvironmentCreation = 'created' | 'id_taken' | 'organization_gone' | 'not_admin';
export type EnvironmentDeletion = 'deleted' | 'gone' | 'not_admin';

/**
 * The platform service's directory writes (the reads are PlatformDirectory's). Every change is one transaction: an
 * organization with its first admin, an environment with its id's reservation, a membership seen from both
 * sides. An organization's roster changes only while it is as it was read (the organization item's `revision`),
 * so two admins demoting each other at once cannot leave it without one.
 */
export class DirectoryWrites {
  private readonly directory: PlatformDirectory;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly options: { sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.directory = new PlatformDirectory(doc, table);
  }

  /** Creates an organization with its creator as admin; false when the id is taken (pick another). */
  async createOrganization(organization: Organization, admin: Membership): Promise<boolean> {
    return this.commitUnlessTaken([
      this.put({ ...organizationKey(organization.id), ...organization, revision: randomUUID() }),
      ...this.membershipPuts(admin),
    ]);
  }

  /**
   * Creates an environment: its id item (the id's reservation, kept as a tombstone when it is deleted, so the id
   * is never given twice) and its item in the organization, while the organization exists and the person acting
   * is still its admin.
   */
  async createEnvironment(
    environment: Environment,
    guard: AdminGuard,
  ): Promise<EnvironmentCreation> {
    const items: TransactItem[] = [
      this.put({ ...environmentKey(environment.id), ...environment, state: 'active' }),
      this.put({
        ...organizationEnvironmentKey(environment.organizationId, environment.id),
        ...environment,
      }),
      {
        ConditionCheck: {
          TableName: this.table,
          Key: organizationKey(environment.organizationId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      ...this.adminCheck(environment.organizationId, guard),
    ];
    const failed = await this.commitOrFailedIndex(items);
    return (['created', 'id_taken', 'id_taken', 'organization_gone', 'not_admin'] as const)[
      failed + 1
    ]!;
  }

  /**
   * Deletes an environment: its id item becomes a tombstone (`state` `deleted`), its item in the organization
   * goes; while the person acting is still an admin. `gone` when it was deleted meanwhile.
   */
  async deleteEnvironment(
    environment: Environment,
    at: string,
    guard: AdminGuard,
  ): Promise<EnvironmentDeletion> {
    const items: TransactItem[] = [
      {
        Update: {
          TableName: this.table,
          Key: environmentKey(environment.id),
          UpdateExpression: 'SET #state = :deleted, deletedAt = :at',
          ConditionExpression: '#state = :active AND organizationId = :org',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':deleted': 'deleted',
            ':active': 'active',
            ':at': at,
            ':org': environment.organizationId,
          },
        },
      },
      {
        Delete: {
          TableName: this.table,
          Key: organizationEnvironmentKey(environment.organizationId, environment.id),
        },
      },
      ...this.adminCheck(environment.organizationId, guard),
    ];
    const failed = await this.commitOrFailedIndex(items);
    return (['deleted', 'gone', 'gone', 'not_admin'] as const)[failed + 1]!;
  }

  /**
   * Changes an organization's roster: `decide` gets its members as they are (undefined when the organization
   * does not exist) and returns the change, or throws to refuse. Written only if the roster is still as read;
   * otherwise read and decided again.
   */
  async changeRoster(
    organizationId: string,
    decide: (members: readonly Membership[] | undefined) => RosterChange,
  ): Promise<RosterChange> {
    return retryRaces<RosterChange>(
      async () => {
        const roster = await this.roster(organizationId);
        const change = decide(roster?.members);
        if (change.kind === 'unchanged' || !roster) return { done: true, value: change };
        const committed = await commitUnlessRaced(this.doc, [
          this.revisionBump(organizationId, roster.revision),
          ...(change.kind === 'put'
            ? this.membershipPuts(change.membership, false)
            : this.membershipDeletes(change.membership)),
        ]);
        return committed ? { done: true, value: change } : { done: false };
      },
      {
        maxAttempts: MAX_ROSTER_ATTEMPTS,
        ...ROSTER_BACKOFF,
        ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
        busy: 'the organization’s members are being changed concurrently; retry shortly',
      },
    );
  }

  /** The organization's members and the revision they were read at; undefined when it does not exist. */
  private async roster(
    organizationId: string,
  ): Promise<{ revision: string | undefined; members: Membership[] } | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: organizationKey(organizationId),
        ConsistentRead: true,
        ProjectionExpression: 'pk, revision',
      }),
    );
    if (!Item) return undefined;
    const revision = typeof Item.revision === 'string' ? Item.revision : undefined;
    return { revision, members: await this.directory.members(organizationId) };
  }

  /** The first item of a roster change: the roster is still at `revision` (none yet: the default organization). */
  private revisionBump(organizationId: string, revision: string | undefined): TransactItem {
    return {
      Update: {
        TableName: this.table,
        Key: organizationKey(organizationId),
        UpdateExpression: 'SET revision = :next',
        ConditionExpression:
          revision === undefined
            ? 'attribute_exists(pk) AND attribute_not_exists(revision)'
            : 'revision = :current',
        ExpressionAttributeValues: {
          ':next': randomUUID(),
          ...(revision === undefined ? {} : { ':current': revision }),
        },
      },
    };
  }

  /** Both sides of a membership; `fresh`: only where none is (a new organization's first admin). */
  private membershipPuts(membership: Membership, fresh = true): TransactItem[] {
    const { organizationId, email } = membership;
    return [memberKey(organizationId, email), membershipKey(email, organizationId)].map((key) =>
      fresh
        ? this.put({ ...key, ...membership })
        : { Put: { TableName: this.table, Item: { ...key, ...membership } } },
    );
  }

  private membershipDeletes({ organizationId, email }: Membership): TransactItem[] {
    return [
      { Delete: { TableName: this.table, Key: memberKey(organizationId, email) } },
      { Delete: { TableName: this.table, Key: membershipKey(email, organizationId) } },
    ];
  }

  private adminCheck(organizationId: string, guard: AdminGuard): TransactItem[] {
    if (guard.adminEmail === undefined) return [];
    return [
      {
        ConditionCheck: {
          TableName: this.table,
          Key: memberKey(organizationId, guard.adminEmail),
          ConditionExpression: '#role = :admin',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':admin': 'admin' },
        },
      },
    ];
  }

  /** A new item, written only where none is. */
  private put(item: Record<string, unknown>): TransactItem {
    return {
      Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
    };
  }

  private async commitUnlessTaken(items: TransactItem[]): Promise<boolean> {
    return (await this.commitOrFailedIndex(items)) === -1;
  }

  /**
   * -1 when committed; otherwise the index of the first item whose condition failed. Concurrent transactions on
   * one item (two environments created in one organization at once both check it) conflict: tried again.
   */
  private async commitOrFailedIndex(items: TransactItem[]): Promise<number> {
    return retryWithBackoff<number>(
      async () => {
        try {
          await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
          return { done: true, value: -1 };
        } catch (err) {
          const failure = classifyWriteFailure(err);
          if (failure.kind === 'conflict') return { done: false };
          if (failure.kind !== 'condition') throw err;
          return { done: true, value: failure.index };
        }
      },
      {
        maxAttempts: MAX_ROSTER_ATTEMPTS,
        ...ROSTER_BACKOFF,
        ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
      },
      () => {
        throw new DependencyThrottledError(
          'the organization is being changed concurrently; retry shortly',
        );
      },
    );
  }
}
