import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ValidationError } from '../../../errors/index.js';

/**
 * Where dummypay may read. It serves a provider's data from files, so a caller who installs it chooses files the
 * platform reads: only a local platform (one person's machine) offers it, and only under one configured root.
 */
export interface DummypaySettings {
  /** The platform's stage: dummypay exists in `local` only. */
  stage: string;
  /** The absolute directory every dummypay connector's `directory` lies in (PAYMENTS_DUMMYPAY_ROOT). */
  root?: string;
}

/** Whether `path` is `root` or lies below it (both absolute and normalised). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The absolute directory a dummypay config names, checked against the settings: refused (400) outside the local
 * stage, without a root, or when it resolves outside the root (`..` out of it, an absolute path elsewhere). A
 * relative directory is taken from the root. Symbolic links are checked when files are read (they can change).
 */
export function dummypayDirectory(settings: DummypaySettings, directory: string): string {
  if (settings.stage !== 'local')
    throw new ValidationError(
      `connector: dummypay reads files on the platform's own machine and is only offered by a local platform (this one is ${settings.stage}); install the generic connector instead`,
    );
  if (settings.root === undefined)
    throw new ValidationError(
      'connector: dummypay is disabled on this platform (no PAYMENTS_DUMMYPAY_ROOT is set)',
    );
  if (directory.includes('\0'))
    throw new ValidationError('body.directory: must not contain a NUL character');
  const resolved = resolve(settings.root, directory);
  if (!isWithin(settings.root, resolved))
    throw new ValidationError(
      `body.directory: must lie within the dummypay root ${settings.root} (a path relative to it, without .. out of it)`,
    );
  return resolved;
}

/** The settings of a platform's configuration (its stage, PAYMENTS_DUMMYPAY_ROOT). */
export function dummypaySettings(config: {
  stage: string;
  payments: { dummypayRoot?: string };
}): DummypaySettings {
  return {
    stage: config.stage,
    ...(config.payments.dummypayRoot ? { root: config.payments.dummypayRoot } : {}),
  };
}
