import packageJson from '../../../package.json' with { type: 'json' };

/** The package version, shared by every Santra program. */
export const SANTRA_VERSION: string = packageJson.version;
