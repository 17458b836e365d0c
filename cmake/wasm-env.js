// Prepended to the wasm test and demo programs: under Node, getenv sees the
// process environment (CROWDSTEER_ISA and the like), as a native program's.
// A program that never calls getenv has no ENV (Emscripten leaves it out).
Module['preRun'] = [function () {
  if (typeof ENV === 'object' && typeof process === 'object' && process.env)
    Object.assign(ENV, process.env);
}];
