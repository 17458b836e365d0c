// A static file server for the package directory (js/), so the page and its
// .wasm load over http://: `node js/demo/serve.mjs [port]`, then open
// http://localhost:8080/demo/. Local files only; POST /result goes to the
// onResult callback of check.mjs.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, normalize, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.png': 'image/png' };

export function serve(port, onResult = () => {}) {
  const server = createServer(async (req, res) => {
    if (req.method === 'POST' && req.url === '/result') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      res.end('ok');
      onResult(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      return;
    }
    let path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path.endsWith('/')) path += 'index.html';
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'content-type': types[extname(path)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] || 8080);
  await serve(port);
  console.log(`crowdsteer demo: http://localhost:${port}/demo/`);
}
