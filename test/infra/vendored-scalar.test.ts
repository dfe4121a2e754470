/**
 * Scalar's bundle kept in the repository (vendor/scalar/) is the file its README names, and the package it came
 * from is installed no more (its Vue toolchain was 253 packages nothing ran).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVendoredScalar } from '../../lib/openapi/scalar-asset.js';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'vendor', 'scalar', 'README.md'), 'utf8');

describe("Scalar's vendored bundle", () => {
  it('is the version and checksum its README gives', async () => {
    const bytes = await readVendoredScalar();
    const version = /`@scalar\/api-reference` \*\*([\d.]+)\*\*/.exec(readme)?.[1];
    expect(version).toBe('1.72.1');
    expect(Buffer.from(bytes).toString('utf8')).toContain(
      `console.info(\`@scalar/api-reference@${version}\`)`,
    );
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(readme).toContain(`\`${sha256}\``);
  });

  it('replaces the npm package: neither package.json nor the lock names it', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies['@scalar/api-reference']).toBeUndefined();
    const lock = readFileSync(join(root, 'package-lock.json'), 'utf8');
    expect(lock).not.toContain('node_modules/@scalar/');
    expect(lock).not.toContain('node_modules/vue-demi');
  });
});
