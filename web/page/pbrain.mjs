#!/usr/bin/env node
// Wuzi's WebAssembly build as a pbrain engine on stdin/stdout, for any manager:
//   node pbrain.mjs          speak the Gomocup protocol
//   node pbrain.mjs bench [DEPTH]   the bench, as `pbrain-wuzi bench`
// The engine runs on a worker thread; this thread reads stdin and hands each line over. The
// worker takes lines synchronously (receiveMessageOnPort), so that a search running inside
// the module sees STOP, END or a new position as soon as it reads its clock.
import {
  Worker, isMainThread, workerData, MessageChannel, receiveMessageOnPort,
} from 'node:worker_threads';
import { readFileSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startEngine, MAX_LINE } from './glue.js';

const wasm = new URL('./wuzi.wasm', import.meta.url);

/** Writes a line to stdout at once (a pipe that is full is waited for). */
function writeLine(line) {
  const bytes = Buffer.from(line + '\n');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

async function engine(poll) {
  const module = await WebAssembly.compile(readFileSync(wasm));
  return startEngine(module, { output: writeLine, poll, now: () => performance.now() });
}

if (isMainThread) {
  const args = process.argv.slice(2);
  if (args[0] === 'bench' && args.length <= 2 && /^\d*$/.test(args[1] ?? '')) {
    (await engine(() => null)).bench(Number(args[1] ?? 0));
  } else if (args.length > 0) {
    writeLine('usage: node pbrain.mjs [bench [DEPTH]]');
    process.exitCode = 2;
  } else {
    serve();
  }
} else {
  await work(workerData);
}

/** This thread: stdin split into lines (bytes, LF or CR LF), posted to the engine thread. */
function serve() {
  const { port1, port2 } = new MessageChannel();
  // The doorbell: counts the lines posted, so that an idle worker can sleep until one comes.
  const bell = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { port: port2, bell: bell.buffer },
    transferList: [port2],
  });
  const post = (line) => {
    port1.postMessage(line);
    Atomics.add(bell, 0, 1);
    Atomics.notify(bell, 0);
  };
  let rest = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    let data = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    let nl;
    while ((nl = data.indexOf(10)) >= 0) {
      let line = data.subarray(0, nl);
      if (line.length && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
      post(new Uint8Array(line.subarray(0, MAX_LINE + 1)));
      data = data.subarray(nl + 1);
    }
    // A line longer than the engine keeps is cut here: it stays over the limit, so the
    // engine answers it with its length error.
    rest = Buffer.from(data.subarray(0, MAX_LINE + 2));
  });
  process.stdin.on('end', () => {
    if (rest.length) post(new Uint8Array(rest));
    post(null);
  });
  worker.on('error', (e) => {
    writeLine(`ERROR the engine stopped: ${String(e.message ?? e).replace(/\s+/g, ' ')}`);
    process.exit(1);
  });
  worker.on('exit', (code) => process.exit(code));
}

/** The engine thread: serves lines until END or the end of input. */
async function work({ port, bell }) {
  const rung = new Int32Array(bell);
  let eof = false;
  const take = () => {
    const m = receiveMessageOnPort(port);
    if (m === undefined) return undefined;
    if (m.message === null) eof = true;
    return m.message;
  };
  const poll = () => (eof ? null : take() ?? null);
  const e = await engine(poll);
  while (!eof) {
    const seen = Atomics.load(rung, 0);
    const line = take();
    if (line === undefined) {
      Atomics.wait(rung, 0, seen);
      continue;
    }
    if (line === null || e.send(line)) break;
  }
  port.close();
}
