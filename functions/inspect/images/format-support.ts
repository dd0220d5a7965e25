import { caniemailFeatures, familyName, platformName } from '../analyze/caniemail-data';

/** sharp's format name to caniemail's image feature; JPEG, PNG and GIF are shown everywhere. */
const FEATURE_OF_FORMAT: Readonly<Record<string, string>> = {
  webp: 'image-webp',
  avif: 'image-avif',
  svg: 'image-svg',
  heif: 'image-heif',
  tiff: 'image-tiff',
};

/**
 * The clients (family and platform, latest tested version) that do not show a format at all,
 * from caniemail's data; undefined for formats every client shows, or that caniemail does not test.
 */
export function poorlySupportedFormat(format: string): string[] | undefined {
  const slug = FEATURE_OF_FORMAT[format];
  const feature = slug ? caniemailFeatures().get(slug) : undefined;
  if (!feature) return undefined;
  const missing = feature.support.filter((v) => v.latest && v.level === 'n').map((v) => `${familyName(v.family)} ${platformName(v.platform)}`);
  return missing.length ? missing : undefined;
}
