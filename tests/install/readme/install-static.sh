cmake -S . -B build/lib -DCMAKE_BUILD_TYPE=Release -DCROWDSTEER_BUILD_TESTS=OFF \
      -DCROWDSTEER_BUILD_DEMO=OFF -DCROWDSTEER_BUILD_BENCHMARKS=OFF
cmake --build build/lib --parallel 2
cmake --install build/lib --prefix "$PREFIX"
