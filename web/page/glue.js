// The JavaScript side of wuzi.wasm (web/src/lib.rs): lines in, lines out. Shared by the page's
// engine worker and the Node wrapper (pbrain.mjs); it knows nothing of either.

/** The longest input line the engine keeps (MAX_LINE in src/protocol/session.rs). */
export const MAX_LINE = 65536;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Instantiates the compiled module. `host.output(line)` receives every output line,
 * `host.poll()` is asked during a search for the next input line that has arrived (a string or
 * bytes, or null), `host.now()` gives the time in ms (performance.now).
 */
export async function startEngine(module, host) {
  let exports = null;
  const memory = () => new Uint8Array(exports.memory.buffer);
  const imports = {
    wuzi: {
      now_ms: () => host.now(),
      output: (ptr, len) => host.output(decoder.decode(memory().subarray(ptr, ptr + len))),
      poll_line: (ptr, cap) => {
        const line = host.poll();
        if (line == null) return -1;
        const bytes = typeof line === 'string' ? encoder.encode(line) : line;
        const n = Math.min(bytes.length, cap);
        memory().set(bytes.subarray(0, n), ptr);
        return n;
      },
    },
  };
  const instance = await WebAssembly.instantiate(module, imports);
  exports = instance.exports;
  return {
    /** Serves one line (a string or bytes, no line ending); true once the engine has quit. */
    send(line) {
      let bytes = typeof line === 'string' ? encoder.encode(line) : line;
      if (bytes.length > MAX_LINE + 1) bytes = bytes.subarray(0, MAX_LINE + 1);
      const ptr = exports.wuzi_input(bytes.length);
      memory().set(bytes, ptr);
      return exports.wuzi_line(bytes.length) !== 0;
    },
    /** `pbrain-wuzi bench [depth]`: the report goes to host.output. */
    bench(depth) {
      exports.wuzi_bench(depth | 0);
    },
  };
}
