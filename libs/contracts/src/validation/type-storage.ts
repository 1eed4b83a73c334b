/**
 * class-transformer's metadata storage (`@Type` and the rest), which the package does not export
 * from its entry point. Its CommonJS build is the one both Node and the CLI's bundle load, so
 * this is the storage the decorators wrote to.
 */
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { defaultMetadataStorage: typeStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};
