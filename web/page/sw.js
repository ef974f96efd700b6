// The page's service worker: keeps every file of the page so that it works offline once
// loaded, and serves them with the headers that make the page cross-origin isolated
// (COOP/COEP), which a SharedArrayBuffer needs: with one, Stop reaches a running search at
// once. Network first, so that a rebuilt page is seen while online.
const CACHE = 'wuzi-@VERSION@';
const FILES = [
  './', 'index.html', 'style.css', 'app.js', 'game.js', 'engine-worker.js', 'glue.js',
  'wuzi.wasm', 'icon.svg', 'manifest.webmanifest',
];

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function isolated(response) {
  if (!response || response.type === 'opaque') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin) return;
  e.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(e.request);
      if (response.ok) cache.put(e.request, response.clone());
      return isolated(response);
    } catch (err) {
      const kept = await cache.match(e.request, { ignoreSearch: true });
      if (kept) return isolated(kept);
      throw err;
    }
  })());
});
