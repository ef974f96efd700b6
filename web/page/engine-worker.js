// The engine's Web Worker: wuzi.wasm speaking the pbrain protocol (web/src/lib.rs through
// glue.js). The page posts {line} messages and gets {line} messages back. A search runs
// inside the call that asked for it, so messages wait until it ends; to stop it early the page
// raises a flag in a SharedArrayBuffer (when the page is cross-origin isolated), which the
// engine reads as YXSTOP whenever it reads its clock.
import { startEngine } from './glue.js';

let engine = null;
let stopFlag = null;
const waiting = [];

async function init(stop) {
  stopFlag = stop ? new Int32Array(stop) : null;
  const bytes = await (await fetch(new URL('./wuzi.wasm', import.meta.url))).arrayBuffer();
  const module = await WebAssembly.compile(bytes);
  engine = await startEngine(module, {
    output: (line) => postMessage({ line }),
    poll: () => (stopFlag && Atomics.exchange(stopFlag, 0, 0) ? 'YXSTOP' : null),
    now: () => performance.now(),
  });
  postMessage({ ready: true });
  while (waiting.length) serve(waiting.shift());
}

function serve(line) {
  // A stop raised after the last search ended must not stop the next one.
  if (stopFlag) Atomics.store(stopFlag, 0, 0);
  try {
    if (engine.send(line)) postMessage({ quit: true });
  } catch (e) {
    postMessage({ crashed: String(e && e.message ? e.message : e) });
  }
}

onmessage = (e) => {
  const m = e.data;
  if (m.init) {
    init(m.stop).catch((err) => postMessage({ crashed: `cannot load the engine: ${err}` }));
  } else if (m.line !== undefined) {
    if (engine) serve(m.line);
    else waiting.push(m.line);
  }
};
