/** Image formats by file extension or data: URI type, to caniemail's `image-<format>` features. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  apng: 'image-apng',
  avif: 'image-avif',
  bmp: 'image-bmp',
  gif: 'image-gif',
  hdr: 'image-hdr',
  heif: 'image-heif',
  heic: 'image-heif',
  ico: 'image-ico',
  jpg: 'image-jpg',
  jpeg: 'image-jpg',
  png: 'image-png',
  svg: 'image-svg',
  'svg+xml': 'image-svg',
  tif: 'image-tiff',
  tiff: 'image-tiff',
  webp: 'image-webp',
  mp4: 'image-mp4',
};

export function imageSlugs(url: string): string[] {
  const data = /^data:image\/([\w.+-]+)/i.exec(url);
  if (data) {
    const format = IMAGE_FORMATS[data[1]!.toLowerCase()];
    return ['image-base64', ...(format ? [format] : [])];
  }
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url.split('?')[0] ?? url)?.[1]?.toLowerCase();
  const format = extension ? IMAGE_FORMATS[extension] : undefined;
  return format ? [format] : [];
}

