// Prepended to the wasm test and demo programs: under Node, getenv sees the
// process environment (CROWDSTEER_ISA and the like), as a native program's.
Module['preRun'] = [function () {
  if (typeof process === 'object' && process.env) Object.assign(ENV, process.env);
}];
