import sharp from 'sharp';

/** A result's screenshot keys (contract §5.6): the four renders, then the two thumbnails made from `default`. */
export type RenderName = 'default' | 'no_images' | 'horizontal' | 'horizontal_no_images';
export type ThumbnailName = 'thumbnail' | 'full_thumbnail';
export type ScreenshotName = RenderName | ThumbnailName;

export const SCREENSHOT_NAMES: readonly ScreenshotName[] = ['default', 'no_images', 'horizontal', 'horizontal_no_images', 'thumbnail', 'full_thumbnail'];
export const isScreenshotName = (name: string): name is ScreenshotName => (SCREENSHOT_NAMES as readonly string[]).includes(name);

/** What decides a client's screenshots: whether it is also shown sideways, and whether it can block images. */
export interface ClientCapabilities {
  rotate: boolean;
  image_blocking: boolean;
}

/** Which renders a client gets in a test: no_images where both allow image blocking, horizontal where the client rotates. */
export function rendersFor(client: ClientCapabilities, imageBlocking: boolean): RenderName[] {
  const blocked = imageBlocking && client.image_blocking;
  return [
    'default',
    ...(blocked ? (['no_images'] as const) : []),
    ...(client.rotate ? (['horizontal'] as const) : []),
    ...(client.rotate && blocked ? (['horizontal_no_images'] as const) : []),
  ];
}

/** Every screenshot name a result lists for the client: its renders and the two thumbnails. */
export const screenshotsFor = (client: ClientCapabilities, imageBlocking: boolean): ScreenshotName[] => [...rendersFor(client, imageBlocking), 'thumbnail', 'full_thumbnail'];

const THUMBNAIL_WIDTH = 200;
const THUMBNAIL_HEIGHT = 300;
/** A full-length thumbnail of a very long email stays a sane file. */
const FULL_THUMBNAIL_MAX_HEIGHT = 4_000;

/** `thumbnail`: the top of the email at 200x300; `full_thumbnail`: the whole of it 200 pixels wide. */
export async function thumbnailsOf(png: Buffer): Promise<Record<ThumbnailName, Buffer>> {
  const thumbnail = await sharp(png).resize({ width: THUMBNAIL_WIDTH, height: THUMBNAIL_HEIGHT, fit: 'cover', position: 'top' }).png().toBuffer();
  const full = await sharp(png).resize({ width: THUMBNAIL_WIDTH, height: FULL_THUMBNAIL_MAX_HEIGHT, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
  return { thumbnail, full_thumbnail: full };
}
