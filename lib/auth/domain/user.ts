import type { PersonProfile } from '../../platform/domain/directory.js';

/** A person as `/api/auth/users` shows them (the SDK's `User`): the platform's id, the provider's subject, the email. */
export interface UserView {
  id: string;
  subject: string;
  email: string;
}

export const userView = (profile: PersonProfile): UserView => ({
  id: profile.id,
  subject: profile.subject,
  email: profile.email,
});

/** Ids `personId` gives (`usr_` and 22 base64url characters); anything else names nobody. */
export const USER_ID = /^usr_[A-Za-z0-9_-]{22}$/;
