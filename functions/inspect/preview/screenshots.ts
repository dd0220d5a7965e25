
/** A result's screenshot keys (contract §5.6): the four renders, then the two thumbnails made from `default`. */
export type RenderName = 'default' | 'no_images' | 'horizontal' | 'horizontal_no_images';
export type ThumbnailName = 'thumbnail' | 'full_thumbnail';
export type ScreenshotName = RenderName | ThumbnailName;

const SCREENSHOT_NAMES: readonly ScreenshotName[] = ['default', 'no_images', 'horizontal', 'horizontal_no_images', 'thumbnail', 'full_thumbnail'];
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
