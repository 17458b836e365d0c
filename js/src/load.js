// Picks and instantiates one of the package's two WebAssembly builds: the
// SIMD one (scalar and simd128 backends) where the engine validates a SIMD
// instruction, the scalar one elsewhere. Both give the same bits.

// A module whose one function uses v128 (i8x16.splat): valid only on
// engines with WebAssembly SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0,
  253, 15, 253, 98, 11,
]);

export function simdSupported() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

const isNode = typeof process === 'object' && !!(process.versions && process.versions.node);

async function readBytes(url) {
  if (isNode && url.protocol === 'file:') {
    const fs = await import('node:fs/promises');
    return new Uint8Array(await fs.readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`crowdsteer: cannot load ${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// simd: true/false forces a build; undefined lets the engine decide.
export async function loadModule({ simd } = {}) {
  const useSimd = simd === undefined ? simdSupported() : !!simd;
  const name = useSimd ? 'crowdsteer-simd' : 'crowdsteer-scalar';
  const base = new URL(`../dist/${name}`, import.meta.url);
  const [factory, wasmBinary] = await Promise.all([
    import(`${base.href}.mjs`),
    readBytes(new URL(`${base.href}.wasm`)),
  ]);
  const module = await factory.default({ wasmBinary });
  return { module, build: useSimd ? 'simd' : 'scalar' };
}
