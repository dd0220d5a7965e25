import sharp from 'sharp';
import { analyzeImage, type ImageResult } from '../../../functions/inspect/images/image-analyzer';
import { extractImages } from '../../../functions/inspect/images/image-extractor';
import { optimizeImage } from '../../../functions/inspect/images/image-optimizer';
import { checkImages } from '../../../functions/inspect/images/image-run';

// Image checks read the bytes with sharp: the format from the file itself, GIF animation,
// colour depth and transparency; and what the HTML around each image says.
const solid = (width: number, height: number, channels: 3 | 4 = 3) => sharp({ create: { width, height, channels, background: channels === 4 ? { r: 10, g: 200, b: 30, alpha: 0.5 } : '#2a6' } });
/** Noise, which compresses badly: a realistic photo-sized file. */
const noise = (width: number, height: number) => {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) % 251;
  return sharp(raw, { raw: { width, height, channels: 3 } });
};

let jpeg: Buffer;
let png: Buffer;
let webp: Buffer;
let gif: Buffer;
let huge: Buffer;

beforeAll(async () => {
  jpeg = await solid(1200, 600).jpeg({ quality: 100 }).toBuffer();
  png = await solid(64, 64, 4).png().toBuffer();
  webp = await solid(40, 40).webp().toBuffer();
  const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((c) => sharp({ create: { width: 20, height: 10, channels: 4, background: c } }).png().toBuffer()));
  gif = await sharp(frames, { join: { animated: true } }).gif({ delay: [100, 200, 300], loop: 0 }).toBuffer();
  huge = await noise(1000, 800).png({ compressionLevel: 0 }).toBuffer();
});

const find = (result: ImageResult, id: string) => [...result.passes, ...result.failures, ...result.informational].find((f) => f.id === id);

describe('analyzeImage', () => {
  it('reads the format from the bytes, whatever the name says', async () => {
    const result = await analyzeImage({ id: 'a'.repeat(24), url: 'https://x.example/photo.png', bytes: jpeg, status: 200, loadTimeMs: 12 });
    expect(find(result, 'image_format_check')!.details).toEqual([{ format: 'JPEG' }]);
    expect(find(result, 'image_dimensions_check')!.details).toEqual([{ width: 1200, height: 600 }]);
    expect(find(result, 'load_time_check')).toMatchObject({ rule: 'Fast Load Time', details: [{ load_time_ms: 12 }] });
    expect(result.status).toBe('Valid');
  });

  it('gives an animated GIF\'s frames, duration and loop, its palette and transparency', async () => {
    const result = await analyzeImage({ id: 'b'.repeat(24), url: 'https://x.example/a.gif', bytes: gif, status: 200 });
    expect(find(result, 'animated_image_check')!.details).toEqual([{ frames: 3, duration_ms: 600, loop: 0 }]);
    expect(find(result, 'image_dimensions_check')!.details).toEqual([{ width: 20, height: 10 }]);
    expect(find(result, 'color_depth_check')!.details[0]).toMatchObject({ is_palette: true });
    expect(find(result, 'transparency_check')!.details).toEqual([{ has_alpha: true }]);
  });

  it('fails a format many clients do not show, naming them from caniemail', async () => {
    const result = await analyzeImage({ id: 'c'.repeat(24), url: 'https://x.example/a.webp', bytes: webp, status: 200 });
    const failure = result.failures.find((f) => f.id === 'image_format_support_check')!;
    expect(failure.details[0]!['unsupported_clients']).toEqual(expect.arrayContaining(['Outlook Windows']));
    expect(result.status).toBe('Invalid');
  });

  it('flags files over 1 MB, slow loads, unreadable bodies and broken URLs', async () => {
    expect(huge.length).toBeGreaterThan(1024 * 1024);
    const big = await analyzeImage({ id: 'd'.repeat(24), url: 'https://x.example/big.png', bytes: huge, status: 200, loadTimeMs: 6000 });
    expect(big.failures.map((f) => [f.id, f.impact])).toEqual(expect.arrayContaining([['image_file_size_check', 'serious'], ['load_time_check', 'moderate']]));
    const text = await analyzeImage({ id: 'e'.repeat(24), url: 'https://x.example/x.jpg', bytes: Buffer.from('<html>not an image</html>'), status: 200 });
    expect(text).toMatchObject({ status: 'Error', failures: [expect.objectContaining({ rule: 'Unreadable Image' })] });
    const broken = await analyzeImage({ id: 'f'.repeat(24), url: 'http://x.example/gone.jpg', status: 404 });
    expect(broken.status).toBe('Error');
    expect(broken.failures.map((f) => f.rule)).toEqual(['Insecure Image URL', 'Broken Image']);
  });
});

describe('extractImages', () => {
  const html = [
    '<html><head><style>',
    '.hero { background-image: url("https://x.example/hero.jpg"); }',
    '</style></head><body>',
    '<table background="https://x.example/bg.png"><tr><td style="background: #fff url(https://x.example/td.gif) no-repeat">',
    '<img src="https://x.example/logo.png" width="100" height="40">',
    '<img src="https://x.example/photo.jpg" alt="A photo">',
    '<!--[if mso]><v:rect><v:fill src="https://x.example/vml.png" /></v:rect><![endif]-->',
    '</td></tr></table></body></html>',
  ].join('\n');

  it('finds img, background attributes, CSS backgrounds and VML fills, each at its line and column', () => {
    const refs = extractImages(html);
    expect(refs.map((r) => [r.url, r.source, r.line, r.column])).toEqual([
      ['https://x.example/hero.jpg', 'css-background', 2, 27],
      ['https://x.example/bg.png', 'background-attribute', 4, 20],
      ['https://x.example/td.gif', 'css-background', 4, 78],
      ['https://x.example/logo.png', 'img', 5, 1],
      ['https://x.example/photo.jpg', 'img', 6, 1],
      ['https://x.example/vml.png', 'vml', 7, 22],
    ]);
    expect(refs[3]).toMatchObject({ alt: null, declaredWidth: 100, declaredHeight: 40, hasDimensionAttributes: true });
  });

  it('judges alt text, dimension attributes and the file against its slot', async () => {
    const [logo] = extractImages('<img src="https://x.example/logo.jpg" width="100" height="50">');
    const oversized = await analyzeImage({ id: '1'.repeat(24), url: logo!.url, ref: logo, bytes: jpeg, status: 200 });
    expect(oversized.failures.map((f) => f.rule)).toEqual(expect.arrayContaining(['Missing Alt Text', 'Oversized Image']));
    expect(oversized.line).toBe(1);
    const [sharpEnough] = extractImages('<img src="https://x.example/logo.jpg" alt="Logo" width="600" height="300">');
    const good = await analyzeImage({ id: '2'.repeat(24), url: sharpEnough!.url, ref: sharpEnough, bytes: jpeg, status: 200 });
    expect(good.failures).toEqual([]);
    expect(good.passes.map((f) => f.rule)).toEqual(expect.arrayContaining(['Alt Text Present', 'Retina Ready', 'Dimension Attributes Present']));
  });
});

describe('checkImages', () => {
  it('fetches each URL once and decodes data: URIs without fetching', async () => {
    const asked: string[] = [];
    const dataUri = `data:image/png;base64,${png.toString('base64')}`;
    const run = await checkImages(['https://x.example/a.jpg', 'https://x.example/a.jpg', dataUri], async (url) => {
      asked.push(url);
      return { status: 200, bytes: jpeg, loadTimeMs: 5 };
    });
    expect(asked).toEqual(['https://x.example/a.jpg']);
    expect(run.images.map((i) => i.status)).toEqual(['Valid', 'Valid', 'Valid']);
    expect(new Set(run.images.map((i) => i.id)).size).toBe(3);
    expect(run.bytes.size).toBe(3);
  });
});

describe('optimizeImage', () => {
  it('makes JPEG and PNG smaller in their own format, and downsizes to twice the displayed width', async () => {
    const photo = await noise(800, 400).jpeg({ quality: 100 }).toBuffer();
    const smaller = await optimizeImage(photo, { displayWidth: 200 });
    if ('error' in smaller) throw new Error(smaller.error);
    expect(smaller.format).toBe('jpeg');
    expect(smaller.bytes.length).toBeLessThan(photo.length);
    expect(smaller.saved).toBe(photo.length - smaller.bytes.length);
    expect((await sharp(smaller.bytes).metadata()).width).toBe(400);
    const pngOut = await optimizeImage(huge);
    if ('error' in pngOut) throw new Error(pngOut.error);
    expect(pngOut.mimeType).toBe('image/png');
    expect(pngOut.bytes.length).toBeLessThan(huge.length);
  });

  it('keeps every frame and delay of an animated GIF, and never returns a larger file', async () => {
    const out = await optimizeImage(gif);
    if ('error' in out) throw new Error(out.error);
    const meta = await sharp(out.bytes, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.delay]).toEqual(['gif', 3, [100, 200, 300]]);
    expect(out.bytes.length).toBeLessThanOrEqual(gif.length);
    expect(await optimizeImage(Buffer.from('nope'))).toMatchObject({ error: expect.stringContaining('Not an image') });
  });

  it('refuses damaged images with their reason, never throwing, however many are optimized at once', async () => {
    // A PNG whose pixel data fails its checksum, and a JPEG cut in half: headers that read fine.
    const damagedPng = Buffer.from(png);
    damagedPng[damagedPng.indexOf('IDAT') + 9]! ^= 0xff;
    const photo = await noise(300, 200).jpeg().toBuffer();
    const cutJpeg = photo.subarray(0, photo.length >> 1);
    // libvips shares one error buffer between threads: concurrent failures once let a damaged
    // PNG's check pass (and its encode then throw), and mixed up their reasons.
    for (let round = 0; round < 20; round++) {
      const outcomes = await Promise.all([optimizeImage(damagedPng), optimizeImage(Buffer.from(damagedPng)), optimizeImage(cutJpeg), optimizeImage(photo)]);
      expect(outcomes.slice(0, 3)).toEqual([
        { error: 'the PNG cannot be decoded (its data is damaged or cut off)' },
        { error: 'the PNG cannot be decoded (its data is damaged or cut off)' },
        { error: 'the JPEG cannot be decoded (its data is damaged or cut off)' },
      ]);
      expect(outcomes[3]).toMatchObject({ format: 'jpeg' });
      // The image check finds each damaged one damaged, however many it reads at once.
      const checked = await Promise.all([damagedPng, cutJpeg, damagedPng, photo].map((bytes, i) => analyzeImage({ id: `i${i}`, url: `https://example.com/${i}`, bytes })));
      expect(checked.map((r) => find(r, 'image_decode_check')?.rule)).toEqual(['Corrupt Image', 'Corrupt Image', 'Corrupt Image', 'Image Decodes']);
    }
  });
});
