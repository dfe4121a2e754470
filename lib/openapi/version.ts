/** Reported by `_info` routes. Bumped with releases. */
export const PLATFORM_VERSION = '0.1.0';
