// Static files for the demo page from one or more roots, with correct types and no way out of them.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

// .wasm must be application/wasm: WebAssembly.instantiateStreaming refuses anything else.
export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.geojson': 'application/geo+json',
};

function refuse(res, status, message) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(message);
}

// Maps a URL path to a file inside `root`, or null. Decoding first matters: "%2e%2e%2f" is "../".
async function locate(root, segments) {
  let base;
  let file;
  try {
    base = await realpath(root);
    file = resolve(base, ...segments);
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    // realpath also catches a symlink inside the root that points outside it.
    file = await realpath(file);
  } catch {
    return null;
  }
  if (file !== base && !file.startsWith(base + sep)) return null;
  const info = await stat(file);
  return info.isFile() ? { file, size: info.size } : null;
}

export async function serveStatic(req, res, roots) {
  const rawPath = (req.url ?? '/').split('?')[0];
  let decoded;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return refuse(res, 400, 'bad URL encoding');
  }
  // Refuse rather than normalise: a path that tries to climb is an attack or a bug, never a page.
  const segments = decoded.split(/[/\\]+/).filter(Boolean);
  if (decoded.includes('\0') || segments.some((s) => s === '..' || s === '.'))
    return refuse(res, 403, 'forbidden path');
  for (const root of roots) {
    const found = await locate(root, segments);
    if (!found) continue;
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(found.file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': found.size,
      'cache-control': 'no-cache', // a demo is rebuilt often; always revalidate
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') return res.end();
    return createReadStream(found.file).pipe(res);
  }
  return refuse(res, 404, 'not found');
}
