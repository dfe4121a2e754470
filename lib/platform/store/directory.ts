import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { batchGetInOrder } from '../../dynamo/batch-get.js';
import { isConditionFailure } from '../../dynamo/errors.js';
import { DEFAULT_ENVIRONMENT } from '../../environments/environment-id.js';
import type { Role } from '../../tokens/claims.js';
import {
  DEFAULT_ORGANIZATION,
  type Environment,
  type EnvironmentType,
  type Membership,
  type Organization,
  type PersonProfile,
  personId,
} from '../domain/directory.js';
import {
  ENVIRONMENT_SORT_PREFIX,
  environmentKey,
  MEMBER_SORT_PREFIX,
  MEMBERSHIP_SORT_PREFIX,
  memberKey,
  membershipKey,
  organizationEnvironmentKey,
  organizationKey,
  organizationPartition,
  personPartition,
  profileKey,
} from './keys.js';

/** The directory's items hold strings only. */
type Item = Record<string, string>;
/** A field the item was written with (every item of a kind is written whole). */
const field = <T extends string = string>(item: Item, name: string): T => item[name] as T;

/** Members of one organization read at most: `/users` and the member list answer with all of them. */
export const MAX_MEMBERS = 1000;

/** A person's identity provider subject differs from the one their email was first seen with. */
export class IdentityConflictError extends Error {}

/**
 * Reads of the platform directory, shared by the platform service and the auth service (which checks a person's
 * membership before it issues them a token). Reads that decide access are strongly consistent: a member removed
 * a moment ago gets nothing.
 */
export class PlatformDirectory {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async organization(id: string): Promise<Organization | undefined> {
    const item = await this.get(organizationKey(id));
    return item && organizationOf(item);
  }

  /** Organizations by id, in the order asked (undefined where none is): one BatchGetItem per 100. */
  async organizations(ids: readonly string[]): Promise<Array<Organization | undefined>> {
    const items = await batchGetInOrder(this.doc, this.table, ids.map(organizationKey));
    return items.map((item) => item && organizationOf(item as Item));
  }

  /** An active environment by id; undefined when there is none or it was deleted. */
  async environment(id: string): Promise<Environment | undefined> {
    const item = await this.get(environmentKey(id));
    return item && item.state !== 'deleted' ? environmentOf(item) : undefined;
  }

  /** An organization's active environments, oldest first. */
  async environmentsOf(organizationId: string): Promise<Environment[]> {
    const items = await this.querySorted(
      organizationPartition(organizationId),
      ENVIRONMENT_SORT_PREFIX,
    );
    return items.map(environmentOf).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async membership(organizationId: string, email: string): Promise<Membership | undefined> {
    const item = await this.get(memberKey(organizationId, email));
    return item && membershipOf(item);
  }

  /** Every organization a person belongs to. */
  async membershipsOf(email: string): Promise<Membership[]> {
    return (await this.querySorted(personPartition(email), MEMBERSHIP_SORT_PREFIX)).map(
      membershipOf,
    );
  }

  /** An organization's members (at most MAX_MEMBERS), by email. */
  async members(organizationId: string): Promise<Membership[]> {
    return (await this.querySorted(organizationPartition(organizationId), MEMBER_SORT_PREFIX)).map(
      membershipOf,
    );
  }

  async profile(email: string): Promise<PersonProfile | undefined> {
    const item = await this.get(profileKey(email));
    return item && profileOf(item);
  }

  /**
   * Records a login: the first binds the email to the identity provider's issuer and subject; later ones must
   * come with the same pair (IdentityConflictError otherwise), so an account re-created at the provider with
   * someone's email does not become them.
   */
  async recordLogin(login: {
    email: string;
    issuer: string;
    subject: string;
    name?: string;
    at: string;
  }): Promise<PersonProfile> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: profileKey(login.email),
          UpdateExpression:
            'SET id = :id, email = :email, issuer = :iss, subject = :sub, lastLoginAt = :at, ' +
            'firstLoginAt = if_not_exists(firstLoginAt, :at)' +
            (login.name !== undefined ? ', #name = :name' : ''),
          ConditionExpression: 'attribute_not_exists(pk) OR (issuer = :iss AND subject = :sub)',
          ExpressionAttributeValues: {
            ':id': personId(login.email),
            ':email': login.email,
            ':iss': login.issuer,
            ':sub': login.subject,
            ':at': login.at,
            ...(login.name !== undefined ? { ':name': login.name } : {}),
          },
          ...(login.name !== undefined ? { ExpressionAttributeNames: { '#name': 'name' } } : {}),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return profileOf(Attributes as Item);
    } catch (err) {
      if (isConditionFailure(err))
        throw new IdentityConflictError('this email belongs to another identity');
      throw err;
    }
  }

  /**
   * A self-hosted deployment's starting point (`npm start`, the platform function's first start): the `default`
   * organization and its `default` environment (production: today's data lives in it), and the configured
   * admins as its first members. Written once, in one transaction; later starts change nothing, so an admin
   * removed afterwards stays removed.
   */
  async ensureDefaults(admins: readonly string[], at: string): Promise<boolean> {
    if (await this.get(organizationKey(DEFAULT_ORGANIZATION))) return false;
    const environment: Environment = {
      id: DEFAULT_ENVIRONMENT,
      organizationId: DEFAULT_ORGANIZATION,
      name: DEFAULT_ENVIRONMENT,
      type: 'production',
      createdAt: at,
    };
    const put = (item: Record<string, unknown>) => ({
      Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    const members = admins.flatMap((email) => {
      const membership = {
        organizationId: DEFAULT_ORGANIZATION,
        email,
        role: 'admin' as Role,
        addedAt: at,
      };
      return [
        put({ ...memberKey(DEFAULT_ORGANIZATION, email), ...membership }),
        put({ ...membershipKey(email, DEFAULT_ORGANIZATION), ...membership }),
      ];
    });
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            put({
              ...organizationKey(DEFAULT_ORGANIZATION),
              id: DEFAULT_ORGANIZATION,
              name: 'Default organization',
              createdAt: at,
            }),
            put({
              ...organizationEnvironmentKey(DEFAULT_ORGANIZATION, environment.id),
              ...environment,
            }),
            put({ ...environmentKey(environment.id), ...environment, state: 'active' }),
            ...members,
          ],
        }),
      );
      return true;
    } catch (err) {
      // Another start wrote them first.
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  private async get(key: { pk: string; sk: string }): Promise<Item | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
    );
    return Item as Item | undefined;
  }

  private async querySorted(pk: string, sortPrefix: string): Promise<Item[]> {
    const items: Item[] = [];
    const pages = paginateQuery(
      { client: this.doc, pageSize: 100 },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': sortPrefix },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      items.push(...((page.Items ?? []) as Item[]));
      if (items.length >= MAX_MEMBERS) break;
    }
    return items.slice(0, MAX_MEMBERS);
  }

  /**
   * The profiles of several persons at once (BatchGetItem, strongly consistent, 100 keys a call), in the order of
   * `emails`; undefined for a person who never logged in. Auth's `/users` reads an organization's members so.
   */
  async profiles(emails: readonly string[]): Promise<Array<PersonProfile | undefined>> {
    const items = await batchGetInOrder(this.doc, this.table, emails.map(profileKey));
    return items.map((item) => item && profileOf(item as Item));
  }
}

function organizationOf(item: Item): Organization {
  return { id: field(item, 'id'), name: field(item, 'name'), createdAt: field(item, 'createdAt') };
}

function environmentOf(item: Item): Environment {
  return {
    id: field(item, 'id'),
    organizationId: field(item, 'organizationId'),
    name: field(item, 'name'),
    type: field<EnvironmentType>(item, 'type'),
    createdAt: field(item, 'createdAt'),
  };
}

function membershipOf(item: Item): Membership {
  return {
    organizationId: field(item, 'organizationId'),
    email: field(item, 'email'),
    role: field<Role>(item, 'role'),
    addedAt: field(item, 'addedAt'),
  };
}

function profileOf(item: Item): PersonProfile {
  const profile: PersonProfile = {
    id: field(item, 'id'),
    email: field(item, 'email'),
    issuer: field(item, 'issuer'),
    subject: field(item, 'subject'),
    firstLoginAt: field(item, 'firstLoginAt'),
    lastLoginAt: field(item, 'lastLoginAt'),
  };
  if (typeof item.name === 'string') profile.name = item.name;
  return profile;
}
