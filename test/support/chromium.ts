import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { inflateSync } from 'node:zlib';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

export interface PageVisit {
  consoleErrors: string[];
  screenshot: Buffer;
  evaluate: unknown;
  /**
   * The fonts Chromium actually drew the text of `fontsOf`'s element with (CDP `CSS.getPlatformFontsForNode`): what
   * ended up on screen after every fallback, not what the CSS asked for.
   */
  platformFonts: { familyName: string; glyphCount: number }[];
}

export interface VisitOptions {
  /** A CSS selector: report the platform fonts used for this element's text. */
  fontsOf?: string;
  /** Extra environment for the browser (e.g. FONTCONFIG_FILE, to run it as on a machine with other fonts). */
  environment?: Record<string, string>;
  /** Capture the whole page, not only the 1200×900 window. */
  fullPage?: boolean;
}

/**
 * Opens a page in headless Debian Chromium over the DevTools protocol (no npm browser download), collects console
 * errors and uncaught exceptions, evaluates an expression, and takes a screenshot.
 */
export async function visitPage(url: string, expression: string, options: VisitOptions = {}): Promise<PageVisit> {
  if (CHROMIUM === undefined) throw new Error('chromium is not installed (apt-get install chromium)');
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  const browser = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      '--window-size=1200,900',
      'about:blank',
    ],
    { stdio: 'ignore', env: { ...process.env, ...options.environment } },
  );
  try {
    const portFile = join(profile, 'DevToolsActivePort');
    const deadline = Date.now() + 20_000;
    while (!existsSync(portFile) || readFileSync(portFile, 'utf8').split('\n').length < 2) {
      if (Date.now() > deadline) throw new Error('chromium did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const port = readFileSync(portFile, 'utf8').split('\n')[0];
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const page = targets.find((target) => target.type === 'page');
    if (page === undefined) throw new Error('no page target');
    return await drive(page.webSocketDebuggerUrl, url, expression, options);
  } finally {
    browser.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
  }
}

async function drive(webSocketUrl: string, url: string, expression: string, options: VisitOptions): Promise<PageVisit> {
  const socket = new WebSocket(webSocketUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let id = 0;
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  const consoleErrors: string[] = [];
  let loaded: () => void = () => undefined;
  const load = new Promise<void>((resolve) => {
    loaded = resolve;
  });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: Record<string, unknown>;
    };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
    if (message.method === 'Page.loadEventFired') loaded();
    if (message.method === 'Runtime.exceptionThrown') consoleErrors.push(JSON.stringify(message.params).slice(0, 300));
    if (message.method === 'Runtime.consoleAPICalled' && message.params?.type === 'error')
      consoleErrors.push(JSON.stringify(message.params).slice(0, 300));
    if (message.method === 'Log.entryAdded') {
      const entry = message.params?.entry as { level?: string; text?: string } | undefined;
      if (entry?.level === 'error') consoleErrors.push(entry.text ?? 'log error');
    }
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      id += 1;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('Page.enable');
  await send('Runtime.enable');
  await send('Log.enable');
  await send('Page.navigate', { url });
  await load;
  const evaluated = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
  let platformFonts: PageVisit['platformFonts'] = [];
  if (options.fontsOf !== undefined) {
    await send('DOM.enable');
    await send('CSS.enable');
    const root = (await send('DOM.getDocument', { depth: 0 })).root as { nodeId: number };
    const { nodeId } = (await send('DOM.querySelector', { nodeId: root.nodeId, selector: options.fontsOf })) as {
      nodeId: number;
    };
    const fonts = nodeId === 0 ? {} : await send('CSS.getPlatformFontsForNode', { nodeId });
    platformFonts = (fonts.fonts as PageVisit['platformFonts'] | undefined) ?? [];
  }
  let clip: Record<string, number> | undefined;
  if (options.fullPage) {
    const metrics = (await send('Page.getLayoutMetrics')).cssContentSize as { width: number; height: number };
    clip = {
      x: 0,
      y: 0,
      width: Math.ceil(metrics.width),
      height: Math.min(16_000, Math.ceil(metrics.height)),
      scale: 1,
    };
  }
  const shot = await send('Page.captureScreenshot', {
    format: 'png',
    ...(clip === undefined ? {} : { clip, captureBeyondViewport: true }),
  });
  socket.close();
  return {
    consoleErrors,
    screenshot: Buffer.from(String(shot.data), 'base64'),
    evaluate: (evaluated.result as { value?: unknown } | undefined)?.value,
    platformFonts,
  };
}

/** The rows of an 8-bit RGB/RGBA PNG as RGB triples, every `step`-th pixel of each row. */
function sampledPixels(png: Buffer, step: number): number[] {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const colourType = png[25];
  const channels = colourType === 6 ? 4 : colourType === 2 ? 3 : 0;
  if (png[24] !== 8 || channels === 0) throw new Error('unsupported PNG');
  const chunks: Buffer[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    if (png.toString('ascii', offset + 4, offset + 8) === 'IDAT')
      chunks.push(png.subarray(offset + 8, offset + 8 + length));
    offset += length + 12;
  }
  const data = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const previous = Buffer.alloc(stride);
  const row = Buffer.alloc(stride);
  const pixels: number[] = [];
  for (let y = 0; y < height; y += 1) {
    const base = y * (stride + 1);
    const filter = data[base] ?? 0;
    for (let x = 0; x < stride; x += 1) {
      const raw = data[base + 1 + x] ?? 0;
      const left = x >= channels ? (row[x - channels] ?? 0) : 0;
      const up = previous[x] ?? 0;
      const upLeft = x >= channels ? (previous[x - channels] ?? 0) : 0;
      const predictor =
        filter === 1
          ? left
          : filter === 2
            ? up
            : filter === 3
              ? (left + up) >> 1
              : filter === 4
                ? paeth(left, up, upLeft)
                : 0;
      row[x] = (raw + predictor) & 0xff;
    }
    for (let x = 0; x < stride; x += channels * step)
      pixels.push(((row[x] ?? 0) << 16) | ((row[x + 1] ?? 0) << 8) | (row[x + 2] ?? 0));
    row.copy(previous);
  }
  return pixels;
}

/** The number of distinct colours in a PNG (8-bit RGB/RGBA): a blank page has one or two. */
export function distinctColours(png: Buffer): number {
  return new Set(sampledPixels(png, 7)).size;
}

/**
 * The share of a PNG's pixels that differ from its most common colour (the page's background): 0 for a blank page,
 * a few percent for a page of text and charts.
 */
export function inkShare(png: Buffer): number {
  const pixels = sampledPixels(png, 1);
  const counts = new Map<number, number>();
  for (const pixel of pixels) counts.set(pixel, (counts.get(pixel) ?? 0) + 1);
  const background = Math.max(...counts.values());
  return pixels.length === 0 ? 0 : (pixels.length - background) / pixels.length;
}

/**
 * A fontconfig file that shows Chromium every font of this machine except those that cover Chinese, as on a stock
 * Debian install without `fonts-noto-cjk`: to prove the CJK checks fail where the fonts are missing. Returns the file
 * and a cleanup.
 */
export function fontconfigWithoutCjk(): { file: string; cleanup: () => void } {
  const list = (pattern: string[]) =>
    new Set(
      execFileSync('fc-list', [...pattern, '--format', '%{file}\n'], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean),
    );
  const cjk = list([':lang=zh']);
  const directory = mkdtempSync(join(tmpdir(), 'fonts-no-cjk-'));
  const fonts = join(directory, 'fonts');
  mkdirSync(fonts);
  let index = 0;
  for (const file of list([])) {
    if (cjk.has(file)) continue;
    index += 1;
    symlinkSync(file, join(fonts, `${index}-${basename(file)}`));
  }
  const file = join(directory, 'fonts.conf');
  writeFileSync(
    file,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${fonts}</dir><cachedir>${join(directory, 'cache')}</cachedir></fontconfig>\n`,
  );
  return { file, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
}

/** Whether a platform font name is a CJK font (Noto/Source Han, WenQuanYi, PingFang, YaHei, …). */
export const isCjkFontName = (name: string) =>
  /CJK|Source Han|WenQuanYi|WQY|PingFang|YaHei|Hiragino|SimSun|SimHei|Droid Sans Fallback|AR PL/i.test(name);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}
